import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { shownInput } from '../../src/agent/calls/call-masking.ts'
import { checkRecording, playwrightSpec } from '../../src/agent/tools/actions.ts'
import { type AgentEvent, type EventDraft, stampEvent } from '../../src/events/events.ts'
import { recordingOf } from '../../src/recording/from-events.ts'
import { locator } from '../../src/recording/playwright.ts'
import type { ElementTarget, Recording } from '../../src/recording/schema.ts'
import { specFolder, tscOutput } from '../support/spec-check.ts'

const url = 'http://127.0.0.1:5000/app/'
const box: ElementTarget = { role: 'textbox', name: 'Search', tag: 'input', attributes: { id: 'q' } }
const toggle: ElementTarget = {
  role: 'checkbox',
  name: '',
  context: [{ role: 'listitem', label: 'Buy milk' }],
}

function stamped(drafts: EventDraft[]): AgentEvent[] {
  return drafts.map((draft, seq) => stampEvent(draft, 'run_t', seq, new Date(0)))
}

/** One step's events: step_started, reflection, the call and its result. */
function call(
  step: number,
  tool: string,
  input: Record<string, unknown>,
  extra: { target?: ElementTarget; ok?: boolean; after?: string; gone?: boolean; shown?: boolean } = {},
): EventDraft[] {
  const callId = `call_${step}`
  return [
    { type: 'step_started', step, maxTurns: 10 },
    {
      type: 'reflection',
      evaluation_previous_goal: '',
      memory: '',
      next_goal: `Goal ${step} with Buy milk.`,
    },
    {
      type: 'tool_call_start',
      callId,
      tool,
      input,
      source: 'model',
      ...(extra.target ? { target: extra.target } : {}),
    },
    {
      type: 'tool_call_result',
      callId,
      ok: extra.ok ?? true,
      result: 'ok',
      durationMs: 1,
      source: 'model',
      ...(extra.ok === false
        ? {}
        : {
            outcome: {
              url: extra.after ?? url,
              ...(extra.gone ? { targetGone: true } : {}),
              ...(extra.shown ? { textShown: true } : {}),
            },
          }),
    },
  ]
}

describe('recordingOf', () => {
  const events = stamped([
    {
      type: 'run_started',
      task: 'Find {{todo}}',
      model: 'm',
      maxTurns: 10,
      startUrl: url,
      variables: { todo: 'Buy milk' },
    },
    ...call(1, 'type', { ref: 'tb1', text: 'Buy milk', submit: true }, { target: box, shown: true }),
    ...call(2, 'click', { ref: 'c1' }, { target: toggle }),
    ...call(3, 'click', { ref: 'c1' }, { target: toggle }),
    ...call(4, 'click', { ref: 'b9' }, { target: { role: 'button', name: 'Gone' }, ok: false }),
    ...call(5, 'navigate', { url: `${url}page2` }, { after: `${url}page2` }),
    ...call(6, 'go_back', {}, { after: url }),
    ...call(7, 'type', { ref: 'tb1', text: '<secret>pw</secret>' }, { target: box }),
    ...call(8, 'type', { ref: 'tb1', text: '••••••' }, { target: box }),
    ...call(9, 'click', { ref: 'b2' }, { target: { role: 'button', name: 'Delete' }, gone: true }),
    ...call(10, 'done', { text: 'Found Buy milk.', success: true }),
  ])
  const recording = recordingOf(events)

  test('keeps every call, without refs, with templates for the variables', () => {
    expect(recording).toMatchObject({
      version: 1,
      task: 'Find {{todo}}',
      startUrl: url,
      variables: { todo: 'Buy milk' },
    })
    expect(recording.steps).toHaveLength(10)
    expect(recording.steps[0]).toEqual({
      step: 1,
      goal: 'Goal 1 with {{todo}}.',
      tool: 'type',
      input: { text: '{{todo}}', submit: true },
      target: box,
      urlBefore: url,
      urlAfter: url,
      expect: [{ kind: 'appeared', text: '{{todo}}' }],
    })
    expect(recording.steps[1]?.target?.context).toEqual([{ role: 'listitem', label: '{{todo}}' }])
    expect(recording.steps.at(-1)?.input).toEqual({ text: 'Found {{todo}}.', success: true })
  })

  test('marks failed calls and calls a later one took back, and replays the rest', () => {
    expect(recording.steps.map((step) => step.skip ?? '-')).toEqual([
      '-',
      'undone',
      'undone',
      'failed',
      'undone',
      'undone',
      '-',
      '-',
      '-',
      '-',
    ])
  })

  test('keeps secret placeholders, asks for masked text, and records what a step achieved', () => {
    expect(recording.steps[6]?.input).toEqual({ text: '<secret>pw</secret>' })
    // A secret's value is not checked against the page.
    expect(recording.steps[6]?.expect).toBeUndefined()
    expect(recording.steps[7]?.input).toEqual({ text: '{{masked_1}}' })
    expect(recording.steps[4]?.expect).toEqual([{ kind: 'url', url: `${url}page2` }])
    expect(recording.steps[8]?.expect).toEqual([{ kind: 'gone' }])
  })

  test('is a valid recording, with a warning for the masked value nobody gave', () => {
    const check = checkRecording(JSON.stringify(recording))
    expect(check.ok).toBe(true)
    if (check.ok) expect(check.warnings).toEqual(['{{masked_1}} has no default: every replay must give it'])
  })
})

test("a step keeps what the page reported after it (the next observation's page log), as the page wrote it", () => {
  const pageLog = {
    console: [{ level: 'error' as const, text: 'could not save Buy milk' }],
    network: [{ method: 'POST', url: `${url}api/save?…`, status: 500 }],
    omitted: 0,
  }
  const observed = (log?: typeof pageLog): EventDraft => ({
    type: 'observation',
    url,
    title: 'App',
    tabs: [],
    refs: 1,
    pageViewTokens: 10,
    notes: [],
    ...(log ? { pageLog: log } : {}),
  })
  const recording = recordingOf(
    stamped([
      {
        type: 'run_started',
        task: 'Save {{todo}}',
        model: 'm',
        maxTurns: 5,
        variables: { todo: 'Buy milk' },
      },
      observed(pageLog), // before any step: the page's own load, no step's doing
      ...call(1, 'click', { ref: 'b1' }, { target: { role: 'button', name: 'Save' } }),
      observed(pageLog),
      ...call(2, 'done', { text: 'It fails.', success: false }),
    ]),
  )
  expect(recording.steps.map((step) => step.pageLog)).toEqual([pageLog, undefined])
  const checked = checkRecording(JSON.parse(JSON.stringify(recording)))
  expect(checked).toMatchObject({ ok: true, recording: { steps: [{ pageLog }, {}] } })
})

test('a password field shows a secret placeholder (nothing secret) but masks typed text', () => {
  const typeTool = {
    name: 'type',
    description: 'Types.',
    input: z.object({ text: z.string() }),
    maskInput: () => ['text'],
    execute: async () => ({ ok: true, text: '' }),
  }
  const call = (text: string) => shownInput({ callId: 'c', tool: 'type', input: { text } }, typeTool)
  expect(call('<secret>pw</secret>')).toEqual({ text: '<secret>pw</secret>' })
  expect(call('hunter2')).toEqual({ text: '••••••' })
  expect(call('x<secret>pw</secret>')).toEqual({ text: '••••••' })
})

describe('checkRecording', () => {
  test('names each problem with its place', () => {
    expect(checkRecording('{ "version": 1,')).toMatchObject({
      ok: false,
      problems: [expect.stringMatching(/^not JSON/)],
    })
    const bad = { version: 2, task: 't', steps: [{ step: 1, tool: 'click', input: {} }], extra: true }
    const check = checkRecording(bad)
    expect(check.ok).toBe(false)
    if (!check.ok) {
      expect(check.problems.some((problem) => problem.startsWith('version:'))).toBe(true)
      expect(check.problems.some((problem) => problem.includes('extra'))).toBe(true)
    }
    const noTarget = checkRecording({ version: 1, task: 't', steps: [{ step: 1, tool: 'click', input: {} }] })
    expect(noTarget).toEqual({
      ok: false,
      problems: ['steps.0: a click step needs a "target" (the element it acts on)'],
    })
  })
})

describe('playwrightSpec', () => {
  test('scopes a look-alike by its context, and falls back to attributes only for a nameless element', () => {
    expect(locator(toggle)).toBe(
      "page.getByRole('listitem').filter({ hasText: 'Buy milk' }).getByRole('checkbox')",
    )
    expect(locator(box)).toBe("page.getByRole('textbox', { name: 'Search', exact: true })")
    expect(locator({ role: 'button', name: '', attributes: { 'data-testid': 'save' } })).toBe(
      "page.getByTestId('save')",
    )
    expect(locator({ role: 'button', name: '', tag: 'button', attributes: { id: 'go' } })).toBe(
      'page.locator(\'[id="go"]\')',
    )
  })

  test('variables are parameters, secrets come from the environment, skipped steps are comments', () => {
    const recording: Recording = {
      version: 1,
      task: 'Log in as {{user}}',
      startUrl: url,
      variables: { user: 'ada' },
      secrets: ['pw'],
      steps: [
        {
          step: 1,
          tool: 'type',
          input: { text: '{{user}}' },
          target: box,
          expect: [{ kind: 'value', value: '{{user}}' }],
        },
        {
          step: 2,
          tool: 'type',
          input: { text: 'pw: <secret>pw</secret>' },
          target: box,
          secrets: { text: ['pw'] },
        },
        { step: 3, tool: 'click', input: {}, target: toggle, skip: 'failed' },
        {
          step: 4,
          tool: 'navigate',
          input: { url: `${url}next` },
          expect: [{ kind: 'url', url: `${url}next` }],
        },
      ],
    }
    const spec = playwrightSpec(recording)
    expect(spec).toContain("const user = process.env['user'] ?? 'ada'")
    expect(spec).toContain('await target.fill(user)')
    expect(spec).toContain('await expect(target).toHaveValue(user)')
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the generated spec's own template string.
    expect(spec).toContain("await target.fill(`pw: ${secret('pw')}`)")
    expect(spec).toContain('// 3. click checkbox — skipped (failed)')
    expect(spec).toContain(`await page.goto(at('${url}next'))`)
    expect(spec).not.toContain('launchOptions')
  })

  test('only a secret the run had, where a step typed it, reads the environment; every other tag stays literal text', () => {
    const tag = (name: string) => `<secret>${name}</secret>`
    const recording: Recording = {
      version: 1,
      task: `Sign in ${tag('CI_TOKEN')}`,
      startUrl: url,
      variables: { user: 'ada' },
      secrets: ['pw'],
      steps: [
        {
          step: 1,
          goal: `Type ${tag('pw')} then ${tag('CI_TOKEN')}`,
          tool: 'type',
          // The run typed pw here; CI_TOKEN is none of its secrets, and {{nope}} no variable of it.
          input: { text: `${tag('pw')}${tag('CI_TOKEN')}{{nope}}{{user}}\`\${x}` },
          target: { role: 'textbox', name: tag('pw') },
          secrets: { text: ['pw', 'CI_TOKEN'] },
          expect: [{ kind: 'value', value: tag('pw') }],
        },
        {
          step: 2,
          goal: `Send ${tag('pw')}`,
          tool: 'navigate',
          input: { url: `${url}c?k=${tag('pw')}&t=${tag('CI_TOKEN')}` },
          expect: [{ kind: 'url', url: `${url}c?k=${tag('pw')}` }],
        },
        { step: 3, tool: 'type', input: { text: tag('pw') }, target: box },
      ],
    }
    const spec = playwrightSpec(recording)
    // One read of the environment for a secret: the typed text of step 1.
    expect(spec.match(/secret\('/g)).toHaveLength(1)
    expect(spec).toContain(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the generated spec's own template string.
      "await target.fill(`${secret('pw')}<secret>CI_TOKEN</secret>{{nope}}${user}\\`\\${x}`)",
    )
    expect(spec).toContain("test('Sign in <secret>CI_TOKEN</secret>'")
    expect(spec).toContain("test.step('1. Type <secret>pw</secret> then <secret>CI_TOKEN</secret>'")
    expect(spec).toContain("getByRole('textbox', { name: '<secret>pw</secret>', exact: true })")
    expect(spec).toContain("toHaveValue('<secret>pw</secret>')")
    expect(spec).toContain(`await page.goto(at('${url}c?k=<secret>pw</secret>&t=<secret>CI_TOKEN</secret>'))`)
    expect(spec).toContain(`toHaveURL(at('${url}c?k=<secret>pw</secret>'))`)
    // Step 3 typed it too, but the recording does not say the run did: literal.
    expect(spec).toContain("await target.fill('<secret>pw</secret>')")
    const folder = specFolder(spec)
    try {
      expect(tscOutput(folder.dir, folder.file)).toBe('')
    } finally {
      folder.remove()
    }
  })

  test('variables named like reserved words, or like what the spec uses, get names of their own that compile', () => {
    const names = ['class', 'process', 'target', 'await', 'default', 'a-b', 'a_b', '1st']
    const recording: Recording = {
      version: 1,
      task: 'Fill the form',
      startUrl: url,
      variables: Object.fromEntries(names.map((name) => [name, `value of ${name}`])),
      steps: names.map((name, index) => ({
        step: index + 1,
        tool: 'type',
        input: { text: `{{${name}}}` },
        target: box,
      })),
    }
    const spec = playwrightSpec(recording)
    const folder = specFolder(spec)
    try {
      expect(tscOutput(folder.dir, folder.file)).toBe('')
    } finally {
      folder.remove()
    }
    const declared = [...spec.matchAll(/^const (\S+) = process\.env\[/gm)].map((match) => match[1])
    expect(declared).toEqual([
      'classValue',
      'processValue',
      'targetValue',
      'awaitValue',
      'defaultValue',
      'a_b',
      'a_b_',
      '_1st',
    ])
    expect(spec).toContain("const processValue = process.env['process'] ?? 'value of process'")
    expect(spec).toContain('await target.fill(targetValue)')
  })
})
