import { describe, expect, test } from 'vitest'
import { traceStepTitle } from '../../../src/agent/calls/trace-step.ts'
import { ArtifactsError } from '../../../src/browser/session/artifacts/artifact-settings.ts'
import { folderArtifacts } from '../../../src/util/run-downloads.ts'
import { agentOutput, scriptedModel } from '../../support/models/scripted-model.ts'
import { collect } from '../../support/run.ts'

const model = () => scriptedModel([{ output: agentOutput({ done: { text: 'done', success: true } }) }])

describe('a library run asking for artifacts', () => {
  test('is refused without a place to keep them, saying how to give one', async () => {
    await expect(
      collect({ task: 't', model: model(), browser: null, artifacts: { trace: true } }),
    ).rejects.toThrow(
      new ArtifactsError(
        'artifacts need a place to be kept: give the run an artifactStore (folderArtifacts(dir) keeps them in <dir>/<runId>/artifacts/).',
      ),
    )
  })

  test('is refused a video when it has secrets, and not a trace', async () => {
    const store = folderArtifacts('/tmp/sextant-unused-runs')
    const secrets = { pw: 'hunter2-long' }
    await expect(
      collect({
        task: 't',
        model: model(),
        browser: null,
        secrets,
        artifacts: { video: true },
        artifactStore: store,
      }),
    ).rejects.toThrow(/artifacts\.video cannot be recorded for a run with secrets/)
    const events = await collect({
      task: 't',
      model: model(),
      browser: null,
      secrets,
      artifacts: { trace: true },
      artifactStore: store,
    })
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'model_stop' })
  })
})

describe("a step's name in the trace", () => {
  const view =
    'URL: https://shop.test/\n- heading "Cart"\n  - button "Save" [disabled] [ref=b1x2]\n- textbox "Name" [ref=t9]'

  test('names the element as the page view showed it, then the rest of the input', () => {
    expect(traceStepTitle(2, 'click', { ref: 'b1x2' }, view)).toBe('step 2: click button "Save"')
    expect(traceStepTitle(3, 'type', { ref: 't9', text: '<secret>pw</secret>' }, view)).toBe(
      'step 3: type textbox "Name" {"text":"<secret>pw</secret>"}',
    )
    expect(traceStepTitle(4, 'go_back', {}, view)).toBe('step 4: go_back')
  })

  test('falls back to the ref for an element the view no longer shows, and cuts a long input', () => {
    expect(traceStepTitle(5, 'hover', { ref: 'gone' }, view)).toBe('step 5: hover gone')
    const title = traceStepTitle(6, 'navigate', { url: `https://shop.test/${'a'.repeat(500)}` }, view)
    expect(title.length).toBeLessThan(160)
    expect(title.endsWith('…')).toBe(true)
  })
})
