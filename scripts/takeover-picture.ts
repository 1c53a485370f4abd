/**
 * Draws docs/takeover.png: the viewer's page of a run whose model asked a
 * person to tick a "verify you are human" box, with the banner and the live
 * frame of that page. Real server, real Chromium; the model is the scripted
 * one of the takeover test (test/server/viewer/captcha.ts). Run it after changing how
 * the run page looks: `node scripts/takeover-picture.ts [out.png]`.
 */
import { join } from 'node:path'
import { startHarness } from '../test/server/support.ts'
import {
  captchaModel,
  captchaPage,
  captchaTask,
  handOverReason,
  liveFrameShown,
} from '../test/server/viewer/captcha.ts'
import { scriptedModel, startViewer } from '../test/server/viewer/support.ts'
import { startPageServer } from '../test/support/page-server.ts'

const out = process.argv[2] ?? join(import.meta.dirname, '../docs/takeover.png')

const site = await startPageServer({ pages: { '/check': captchaPage } })
const fake = await scriptedModel({ [captchaTask]: captchaModel })
const harness = await startHarness({ fake, browser: 'chromium' })
const viewer = await startViewer()
try {
  const response = await fetch(`${harness.url}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ task: captchaTask, startUrl: `${site.url}/check`, maxTurns: 5 }),
  })
  await response.body?.cancel()
  const id = response.headers.get('x-run-id') ?? ''
  const { page } = await viewer.open({ width: 1280, height: 1160 })
  await page.goto(`${harness.url}/runs/${id}`)
  await page.getByRole('region', { name: 'Takeover' }).getByText(handOverReason).waitFor()
  await liveFrameShown(page)
  // As a person sees it once they have clicked into the frame: focused, so their keys go to the page.
  await page.locator('#live-frame').evaluate((frame) => frame.focus({ preventScroll: true }))
  await page.screenshot({ path: out })
  await fetch(`${harness.url}/v1/runs/${id}/takeover`, { method: 'DELETE' })
  console.log(`Wrote ${out}`)
} finally {
  await viewer.close()
  await harness.close()
  await fake.close()
  await site.close()
}
