import { expect, test } from 'vitest'
import { RunSecrets } from '../../../src/secrets/secrets.ts'
import { jpegRegion, meanDifference, type PixelBox } from '../../support/jpeg-pixels.ts'
import { Driver } from '../helpers/harness.ts'
import { usePictureHarness } from '../helpers/picture-harness.ts'

// Pictures never show a secret: a secret typed into an ordinary text field is blank in every later
// screenshot and vision image, whatever the page does with the field. Judged on decoded pixels.

// Each test opens four runs (two secret values, two plain texts) and decodes their pictures: slow on a busy machine.

const field: PixelBox = { x: 20, y: 20, width: 420, height: 44 }
/** Inside the field's border, where its text is drawn. */
const inside: PixelBox = { x: field.x + 4, y: field.y + 4, width: field.width - 8, height: field.height - 8 }
const echo: PixelBox = { x: 20, y: 100, width: 600, height: 40 }

const formPage = `<!doctype html><meta charset="utf-8"><title>Account</title>
<body style="margin:0;background:#fff">
<label style="position:absolute;left:500px;top:20px">Account number</label>
<input id="account" aria-label="Account number" style="position:absolute;left:${field.x}px;top:${field.y}px;width:${field.width}px;height:${field.height}px;box-sizing:border-box;font:28px monospace;color:#000;border:1px solid #000;padding:0 6px">
<p id="echo" style="position:absolute;left:${echo.x}px;top:${echo.y}px;margin:0;font:28px monospace;color:#000"></p>
</body>`

/**
 * The form, with the echo drawn by a frame from another site (localhost): another renderer process.
 * The frame's white border and padding move its content 12 px from its box: the covers must follow.
 */
const framedFormPage = formPage.replace(
  '</body>',
  `<iframe id="echo-frame" style="position:absolute;left:${echo.x - 12}px;top:${echo.y - 12}px;width:600px;height:40px;border:6px solid #fff;padding:6px"></iframe>
<script>document.getElementById('echo-frame').src = location.href.replace('127.0.0.1', 'localhost').replace(/[^/]*$/, 'echo-frame')</script>
</body>`,
)
const echoFrame = `<!doctype html><meta charset="utf-8"><body style="margin:0;background:#fff">
<p id="echo" style="margin:0;font:28px monospace;color:#000"></p>
<script>addEventListener('message', (event) => { document.getElementById('echo').textContent = 'You typed ' + event.data })</script>
</body>`

const harness = usePictureHarness({
  '/form': formPage,
  '/framed-form': framedFormPage,
  '/echo-frame': echoFrame,
})

const secretsFor = (value: string) => RunSecrets.from({ account: value })

async function act(driver: Driver, secrets: RunSecrets, tool: string, input: Record<string, unknown>) {
  const result = await driver.actWith(secrets, tool, input)
  expect(result.ok, result.text).toBe(true)
}

/** What a run's pictures show after it typed `text` (a placeholder or plain text) and the page did `then`. */
async function picturesAfterTyping(
  secrets: RunSecrets,
  text: string,
  then?: string,
  path = '/form',
): Promise<{ kept: Uint8Array; vision: Uint8Array }> {
  const driver = await Driver.open(harness.pool, {
    startUrl: `${harness.server.url}${path}`,
    viewport: { width: 800, height: 400 },
    allowedDomains: ['127.0.0.1', 'localhost'],
  })
  try {
    await driver.observe()
    await act(driver, secrets, 'type', { ref: driver.ref('textbox', 'Account number'), text })
    if (then) await act(driver, RunSecrets.none(), 'execute_javascript', { script: then })
    await driver.observe()
    const signal = new AbortController().signal
    const screenshot = driver.session.pictures?.screenshot
    if (!screenshot) throw new Error('the session takes no screenshots')
    const options = { quality: 90, secrets: secrets.isEmpty ? undefined : secrets }
    const kept = await screenshot(options, signal)
    const vision = await screenshot({ ...options, labels: true }, signal)
    return { kept: kept.data, vision: vision.data }
  } finally {
    await driver.close()
  }
}

/** How much the field's inside differs between two runs' pictures, kept and vision. */
async function fieldDifference(
  a: { kept: Uint8Array; vision: Uint8Array },
  b: { kept: Uint8Array; vision: Uint8Array },
  box = inside,
): Promise<{ kept: number; vision: number }> {
  const [keptA, keptB, visionA, visionB] = await Promise.all(
    [a.kept, b.kept, a.vision, b.vision].map((data) => jpegRegion(harness.decoderPage, data, box)),
  )
  return { kept: meanDifference(keptA!, keptB!), vision: meanDifference(visionA!, visionB!) }
}

/**
 * Two runs typing different secret values, after which the page does `then`, give the same pixels
 * (within JPEG noise) in the field and in the echo of it, kept picture and vision image alike.
 */
async function expectFieldAndEchoBlank(then: string, path?: string): Promise<void> {
  const a = await picturesAfterTyping(secretsFor('4711-0815-AAAA'), '<secret>account</secret>', then, path)
  const b = await picturesAfterTyping(secretsFor('9932-7781-ZZZZ'), '<secret>account</secret>', then, path)
  for (const box of [inside, echo]) {
    const difference = await fieldDifference(a, b, box)
    expect(difference.kept).toBeLessThan(1.5)
    expect(difference.vision).toBeLessThan(1.5)
  }
}

test('a secret typed into an ordinary text field is blank in the kept picture and the vision image', async () => {
  // The test sees text: two plain values give pictures that differ where the field is.
  const plainA = await picturesAfterTyping(RunSecrets.none(), '4711-0815-AAAA')
  const plainB = await picturesAfterTyping(RunSecrets.none(), '9932-7781-ZZZZ')
  const plain = await fieldDifference(plainA, plainB)
  expect(plain.kept).toBeGreaterThan(5)
  expect(plain.vision).toBeGreaterThan(5)

  // The same two values as secrets: the field looks the same in both runs (within JPEG noise).
  const secretA = await picturesAfterTyping(secretsFor('4711-0815-AAAA'), '<secret>account</secret>')
  const secretB = await picturesAfterTyping(secretsFor('9932-7781-ZZZZ'), '<secret>account</secret>')
  const secret = await fieldDifference(secretA, secretB)
  expect(secret.kept).toBeLessThan(1.5)
  expect(secret.vision).toBeLessThan(1.5)
}, 90_000)

test('the field stays blank when the page re-renders it as a new node, and so does a text that shows the value', async () => {
  // The page swaps the field for a fresh copy holding the value (no handle of ours points at it), and echoes it.
  const rerender = `const old = document.getElementById('account'); const copy = old.cloneNode(); copy.value = old.value;
    old.replaceWith(copy); document.getElementById('echo').textContent = 'You typed ' + copy.value; true`
  const plainA = await picturesAfterTyping(RunSecrets.none(), '4711-0815-AAAA', rerender)
  const plainB = await picturesAfterTyping(RunSecrets.none(), '9932-7781-ZZZZ', rerender)
  expect((await fieldDifference(plainA, plainB, echo)).kept).toBeGreaterThan(5)

  await expectFieldAndEchoBlank(rerender)
}, 90_000)

test("a page that breaks the DOM's built-ins in its own scripts cannot hide from the search what shows a secret", async () => {
  // As above, then the page's scripts blind every in-page search: queries find nothing, tree walkers
  // walk nothing, fields read empty. The search runs in a world of its own, where none of that reaches.
  const blind = `const old = document.getElementById('account'); const copy = old.cloneNode(); copy.value = old.value;
    old.replaceWith(copy); document.getElementById('echo').textContent = 'You typed ' + copy.value;
    const none = document.createDocumentFragment().querySelectorAll('*');
    for (const kind of [Document, Element, DocumentFragment]) kind.prototype.querySelectorAll = () => none;
    Document.prototype.createTreeWalker = () => ({ nextNode: () => null });
    Object.defineProperty(HTMLInputElement.prototype, 'value', { get: () => '', set: () => {}, configurable: true });
    true`
  await expectFieldAndEchoBlank(blind)
}, 90_000)

test('a text showing the secret in a frame from another site (another process) is blank too', async () => {
  const tell = `document.getElementById('echo-frame').contentWindow.postMessage(document.getElementById('account').value, '*'); true`
  // The test sees text: two plain values differ where the frame echoes them.
  const plainA = await picturesAfterTyping(RunSecrets.none(), '4711-0815-AAAA', tell, '/framed-form')
  const plainB = await picturesAfterTyping(RunSecrets.none(), '9932-7781-ZZZZ', tell, '/framed-form')
  expect((await fieldDifference(plainA, plainB, echo)).kept).toBeGreaterThan(5)
  await expectFieldAndEchoBlank(tell, '/framed-form')
}, 90_000)
