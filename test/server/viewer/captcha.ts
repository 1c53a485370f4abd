import type { Page } from 'playwright-core'
import { type Script, turn } from './support.ts'

/**
 * A "verify you are human" check at a known place, and a model that asks a
 * person to tick it: shared by the takeover test through the viewer and the
 * script that draws the docs' picture of it (scripts/takeover-picture.ts).
 */

/** The checkbox's centre, in CSS pixels of the run's page (its viewport is 1280 × 800). */
export const checkboxCentre = { x: 456, y: 316 }

/** What the page shows once the box is ticked, and only then. */
export const verifiedText = 'Verified: you may continue.'

export const captchaPage = `<!doctype html><meta charset="utf-8"><title>One more step</title>
<style>
body{margin:0;font:18px/1.4 system-ui,sans-serif;color:#222;background:#fff}
h1{position:absolute;left:400px;top:140px;margin:0;font-size:28px}
.box{position:absolute;left:400px;top:260px;width:460px;height:112px;box-sizing:border-box;border:1px solid #c8c8c8;border-radius:6px;background:#f9f9f9;box-shadow:0 1px 3px #0002}
#human{position:absolute;left:438px;top:298px;width:36px;height:36px;margin:0}
label{position:absolute;left:496px;top:303px}
#status{position:absolute;left:400px;top:400px;margin:0;color:#1b7f45;font-weight:600}
</style>
<h1>Checking your browser</h1>
<div class="box"></div>
<input type="checkbox" id="human">
<label for="human">Verify you are human</label>
<p id="status" role="status"></p>
<script>
document.getElementById('human').addEventListener('change', (event) => {
  document.getElementById('status').textContent = event.target.checked ? ${JSON.stringify(verifiedText)} : ''
})
</script>`

export const captchaTask = 'Get past the human check'

export const handOverReason = 'Tick "Verify you are human": only a person may.'

/**
 * First a hand_over; then whatever the page view shows decides: success only
 * when the page says it is verified, so a click that never reached the page
 * fails the run.
 */
export const captchaModel: Script = (step, view) => {
  if (step <= 1) return turn.action({ hand_over: { reason: handOverReason } })
  return view.includes(verifiedText)
    ? turn.done('The page says I am verified.')
    : turn.done('The page is not verified.', false)
}

/** Waits until the viewer's live frame shows a decoded picture of the run's page. */
export async function liveFrameShown(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const frame = document.getElementById('live-frame') as HTMLImageElement | null
    return Boolean(frame?.complete && frame.naturalWidth > 0 && frame.getBoundingClientRect().width > 0)
  })
}

/** Clicks the live frame where the run's page has `point` (CSS pixels), scaled to the frame's displayed box. */
export async function clickOnLiveFrame(page: Page, point: { x: number; y: number }): Promise<void> {
  const frame = page.locator('#live-frame')
  const box = await frame.boundingBox()
  const viewport = await frame.evaluate((image) => ({
    width: Number(image.dataset.viewportWidth),
    height: Number(image.dataset.viewportHeight),
  }))
  if (!box || !(viewport.width > 0)) throw new Error('The live frame has no box or no viewport size.')
  await frame.click({
    position: { x: (point.x * box.width) / viewport.width, y: (point.y * box.height) / viewport.height },
  })
}
