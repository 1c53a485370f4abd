import { describe, expect, test } from 'vitest'
import { detectAll, detectLoops } from '../../../src/agent/stuck/detectors/detect-all.ts'
import { detectErrorBudget } from '../../../src/agent/stuck/detectors/error-budget.ts'
import { detectOscillation } from '../../../src/agent/stuck/detectors/oscillation.ts'
import { detectRepeatedAction } from '../../../src/agent/stuck/detectors/repeated-action.ts'
import { detectStall } from '../../../src/agent/stuck/detectors/stall.ts'
import { detectUrlCycle } from '../../../src/agent/stuck/detectors/url-cycle.ts'
import { defaultStuckOptions, errorBudget, resolveStuckOptions } from '../../../src/agent/stuck/options.ts'
import { click, makeTrace, prefixes, type Step } from './helpers.ts'

const options = resolveStuckOptions()
const run = { maxTurns: 40 }

/** The kinds detected at each step of a run, step by step. */
function kindsByStep(steps: Step[], final: { fp: string; url?: string; loading?: boolean }) {
  return prefixes(steps, final).map((trace) =>
    detectAll(trace, options, run).map((detection) => detection.kind),
  )
}

describe('stall', () => {
  test('fires when three clicks leave the page unchanged, at the step after the third', () => {
    const steps = [click('b1', 'A'), click('b1', 'A'), click('b1', 'A')]
    expect(detectStall(makeTrace(steps.slice(0, 2), { fp: 'A' }), options)).toBeUndefined()
    const stall = detectStall(makeTrace(steps, { fp: 'A' }), options)
    expect(stall).toMatchObject({ kind: 'stall', since: 1, urls: ['https://site.test/a'] })
    expect(stall?.detail).toContain('click {"ref":"b1"} (3×')
  })

  test('reading the page in between neither counts nor breaks the run', () => {
    const steps = [
      click('b1', 'A'),
      { fp: 'A', tool: 'find', input: { text: 'Save' } },
      click('b2', 'A'),
      click('b1', 'A'),
    ]
    expect(detectStall(makeTrace(steps, { fp: 'A' }), options)?.since).toBe(1)
    // …but a stall is reported only while the latest action is one of the stalled ones.
    const reading = [...steps, { fp: 'A', tool: 'read_page' }]
    expect(detectStall(makeTrace(reading, { fp: 'A' }), options)).toBeUndefined()
  })

  test('any change of the page restarts the count', () => {
    const steps = [click('b1', 'A'), click('b1', 'A'), click('b1', 'B'), click('b1', 'B')]
    // A→A, A→A, A→B, B→B, B→B: only the last two are unchanged.
    expect(
      detectStall(
        makeTrace([...steps.slice(0, 2), { ...steps[2]!, fp: 'A' }, ...steps.slice(3)], { fp: 'B' }),
        options,
      ),
    ).toBeUndefined()
  })

  test('waiting on a page that is visibly loading is not a stall; waiting on a static page is', () => {
    const waitLoading: Step = { fp: 'L', tool: 'wait', input: { seconds: 3 }, loading: true }
    expect(
      kindsByStep([waitLoading, waitLoading, waitLoading, waitLoading, waitLoading], {
        fp: 'L',
        loading: true,
      }).flat(),
    ).toEqual([])
    const waitStatic: Step = { fp: 'S', tool: 'wait', input: { seconds: 3 } }
    expect(detectStall(makeTrace([waitStatic, waitStatic, waitStatic], { fp: 'S' }), options)?.kind).toBe(
      'stall',
    )
  })

  test('a recovery that changed the page between two stalled actions does not hide the stall', () => {
    // Step 3 arrived on A (the click did nothing); Escape then changed it to A2, where the click did nothing again.
    const steps: Step[] = [click('b1', 'A'), click('b1', 'A'), { ...click('b1', 'A2'), arrived: { fp: 'A' } }]
    expect(detectStall(makeTrace(steps, { fp: 'A2' }), options)?.since).toBe(1)
  })

  test('the threshold is an option', () => {
    const steps = [click('b1', 'A'), click('b1', 'A')]
    expect(detectStall(makeTrace(steps, { fp: 'A' }), resolveStuckOptions({ stallSteps: 2 }))?.kind).toBe(
      'stall',
    )
  })
})

describe('oscillation', () => {
  const there = { fp: 'A', tool: 'click', input: { ref: 'l1' } }
  const back = { fp: 'B', tool: 'go_back' }

  test('fires on A-B-A-B, when the fourth page is observed', () => {
    const steps = [there, back, there]
    const found = detectOscillation(makeTrace(steps, { fp: 'B' }), options)
    expect(found).toMatchObject({ kind: 'oscillation', since: 1 })
    expect(found?.detail).toContain('site.test/a and site.test/b')
    expect(detectOscillation(makeTrace(steps.slice(0, 2), { fp: 'A' }), options)).toBeUndefined()
  })

  test('A-B-A-C is not an oscillation', () => {
    expect(detectOscillation(makeTrace([there, back, there], { fp: 'C' }), options)).toBeUndefined()
  })

  test('steps that leave the page as it was are folded into it', () => {
    const steps = [there, back, { fp: 'A', tool: 'read_page' }, there]
    expect(detectOscillation(makeTrace(steps, { fp: 'B' }), options)?.since).toBe(1)
    // …and only a step that continues the alternation keeps it live.
    expect(
      detectOscillation(
        makeTrace([there, back, there, { fp: 'B', tool: 'read_page' }], { fp: 'B' }),
        options,
      ),
    ).toBeUndefined()
  })

  test('two states of one URL (a menu opened and closed) count', () => {
    const url = 'https://site.test/settings'
    const steps = [
      { fp: 'closed', url, tool: 'click', input: { ref: 'b1' } },
      { fp: 'open', url, tool: 'press_key', input: { key: 'Escape' } },
      { fp: 'closed', url, tool: 'click', input: { ref: 'b1' } },
    ]
    expect(detectOscillation(makeTrace(steps, { fp: 'open', url }), options)?.detail).toContain(
      'two states of one URL',
    )
  })

  test('a page that flips by itself while the agent waits for it to load is not an oscillation', () => {
    const wait = (fp: string): Step => ({ fp, tool: 'wait', input: { seconds: 2 }, loading: true })
    expect(
      kindsByStep([wait('A'), wait('B'), wait('A'), wait('B')], { fp: 'A', loading: true }).flat(),
    ).toEqual([])
  })
})

describe('URL cycle', () => {
  const u = (path: string) => `https://shop.test/${path}`

  test('fires on A-B-C-A-B-C revisiting the same pages', () => {
    const steps: Step[] = [
      { fp: 'cart', url: u('cart'), tool: 'click', input: { ref: 'checkout' } },
      { fp: 'login', url: u('login'), tool: 'click', input: { ref: 'guest' } },
      { fp: 'home', url: u(''), tool: 'click', input: { ref: 'cart' } },
      { fp: 'cart', url: u('cart'), tool: 'click', input: { ref: 'checkout' } },
      { fp: 'login', url: u('login'), tool: 'click', input: { ref: 'guest' } },
    ]
    const found = detectUrlCycle(makeTrace(steps, { fp: 'home', url: u('') }), options)
    expect(found).toMatchObject({ kind: 'url_cycle', since: 1 })
    expect(found?.detail).toContain('period 3')
    expect(
      detectUrlCycle(makeTrace(steps.slice(0, 4), { fp: 'login', url: u('login') }), options),
    ).toBeUndefined()
  })

  test('fires when page content differs on each visit but the actions repeat exactly', () => {
    // Fingerprints change every visit (a rotating banner), so only URLs and actions show the loop.
    const steps: Step[] = [
      { fp: 'a1', url: u('a'), tool: 'click', input: { ref: 'next' } },
      { fp: 'b1', url: u('b'), tool: 'click', input: { ref: 'prev' } },
      { fp: 'a2', url: u('a'), tool: 'click', input: { ref: 'next' } },
    ]
    const found = detectLoops(makeTrace(steps, { fp: 'b2', url: u('b') }), options)
    expect(found.map((detection) => detection.kind)).toEqual(['url_cycle'])
    expect(found[0]?.detail).toContain('with the same actions')
  })

  test('repetitive work through the same URLs with new content is not a cycle (creating contacts)', () => {
    const contact = (name: string, n: number): Step[] => [
      { fp: `list${n}`, url: u('contacts'), tool: 'click', input: { ref: 'new' } },
      { fp: `form${n}`, url: u('contacts/new'), tool: 'type', input: { ref: 'name', text: name } },
      { fp: `form${n}-name`, url: u('contacts/new'), tool: 'click', input: { ref: 'save' } },
    ]
    const steps = [...contact('Ada', 1), ...contact('Grace', 2), ...contact('Linus', 3)]
    expect(kindsByStep(steps, { fp: 'list4', url: u('contacts') }).flat()).toEqual([])
  })

  test('browsing results one by one (list, item, list, another item) is not a cycle', () => {
    const steps: Step[] = []
    for (const item of [1, 2, 3, 4]) {
      steps.push({ fp: 'list', url: u('search?q=lamp'), tool: 'click', input: { ref: `r${item}` } })
      steps.push({ fp: `item${item}`, url: u(`item/${item}`), tool: 'go_back' })
    }
    expect(kindsByStep(steps, { fp: 'list', url: u('search?q=lamp') }).flat()).toEqual([])
  })
})

describe('repeated action', () => {
  test('the same click three times without reaching anything new', () => {
    const steps = [click('b1', 'A'), click('b1', 'A'), click('b1', 'A')]
    expect(detectRepeatedAction(makeTrace(steps, { fp: 'A' }), options)).toMatchObject({
      kind: 'repeated_action',
      since: 1,
    })
  })

  test('inputs differing only in whitespace, case, trailing slash, parameter order or tracking are the same action', () => {
    const url = 'https://shop.test/search?q=lamp'
    const steps: Step[] = [
      { fp: 'home', tool: 'navigate', input: { url: 'https://Shop.test/search?q=lamp&sort=price' } },
      {
        fp: 'results',
        url,
        tool: 'navigate',
        input: { url: ' https://shop.test/search/?sort=price&q=LAMP ' },
      },
      {
        fp: 'results',
        url,
        tool: 'navigate',
        input: { url: 'https://shop.test/search?q=lamp&sort=price&utm_source=ad' },
      },
    ]
    expect(detectRepeatedAction(makeTrace(steps, { fp: 'results', url }), options)?.since).toBe(1)
    const typed: Step[] = [
      { fp: 'S', tool: 'type', input: { ref: 's1', text: 'Desk  lamp', submit: true } },
      { fp: 'R', tool: 'type', input: { ref: 's1', text: ' desk lamp', submit: true } },
      { fp: 'R', tool: 'type', input: { submit: true, text: 'DESK LAMP', ref: 's1' } },
    ]
    expect(detectRepeatedAction(makeTrace(typed, { fp: 'R' }), options)?.kind).toBe('repeated_action')
  })

  test('inputs differing in pagination values are different actions', () => {
    const steps: Step[] = [3, 4, 5].map((page) => ({
      fp: 'empty',
      tool: 'navigate',
      input: { url: `https://shop.test/search?q=lamp&page=${page}` },
    }))
    expect(detectRepeatedAction(makeTrace(steps, { fp: 'empty' }), options)).toBeUndefined()
    const cursors: Step[] = ['a', 'b', 'c'].map((cursor) => ({
      fp: 'same',
      tool: 'fetch_more',
      input: { cursor },
    }))
    expect(detectRepeatedAction(makeTrace(cursors, { fp: 'same' }), options)).toBeUndefined()
  })

  test('only the latest action is judged, within the window', () => {
    const steps = [click('b1', 'A'), click('b1', 'A'), click('b1', 'A'), click('b2', 'A')]
    expect(detectRepeatedAction(makeTrace(steps, { fp: 'A' }), options)).toBeUndefined()
    const spread = [click('b1', 'A'), click('b2', 'A'), click('b3', 'A'), click('b1', 'A'), click('b1', 'A')]
    expect(
      detectRepeatedAction(makeTrace(spread, { fp: 'A' }), resolveStuckOptions({ repeatWindow: 4 })),
    ).toBeUndefined()
    expect(detectRepeatedAction(makeTrace(spread, { fp: 'A' }), options)?.since).toBe(1)
  })

  test('going back to a list between opening different results is progress', () => {
    const steps: Step[] = [
      click('r1', 'list'),
      { fp: 'i1', tool: 'go_back' },
      click('r2', 'list'),
      { fp: 'i2', tool: 'go_back' },
      click('r3', 'list'),
      { fp: 'i3', tool: 'go_back' },
    ]
    expect(detectRepeatedAction(makeTrace(steps, { fp: 'list' }), options)).toBeUndefined()
  })
})

describe('error budget', () => {
  test('is max(3, ceil(maxTurns / 3)) failed actions; one more ends the run', () => {
    expect(errorBudget(9, defaultStuckOptions)).toBe(3)
    expect(errorBudget(40, defaultStuckOptions)).toBe(14)
    expect(detectErrorBudget(14, 40, options, 20)).toBeUndefined()
    expect(detectErrorBudget(15, 40, options, 20)).toMatchObject({ kind: 'error_budget', since: 20 })
    expect(detectErrorBudget(4, 9, options, 6)?.detail).toContain('budget of 3')
  })

  test('is counted from the trace when no count is given', () => {
    const steps = ['A', 'B', 'C', 'D'].map((fp) => ({ fp, tool: 'click', input: { ref: fp }, ok: false }))
    expect(detectAll(makeTrace(steps, { fp: 'E' }), options, { maxTurns: 9 }).map((d) => d.kind)).toEqual([
      'error_budget',
    ])
    expect(detectAll(makeTrace(steps.slice(0, 3), { fp: 'D' }), options, { maxTurns: 9 })).toEqual([])
  })
})

describe('legitimate progress fires nothing', () => {
  test('paging through results with the same Next button', () => {
    const steps = [1, 2, 3, 4, 5, 6, 7].map((page) => click('next', `results-p${page}`))
    expect(kindsByStep(steps, { fp: 'results-p8' }).flat()).toEqual([])
  })

  test('paging through results by URL', () => {
    const steps: Step[] = [1, 2, 3, 4, 5, 6].map((page) => ({
      fp: `p${page}`,
      url: `https://shop.test/search?q=lamp&page=${page}`,
      tool: 'navigate',
      input: { url: `https://shop.test/search?q=lamp&page=${page + 1}` },
    }))
    expect(kindsByStep(steps, { fp: 'p7', url: 'https://shop.test/search?q=lamp&page=7' }).flat()).toEqual([])
  })

  test('filling successive fields of one form', () => {
    const url = 'https://shop.test/checkout'
    const fields = ['name', 'email', 'street', 'city', 'zip', 'country']
    const steps: Step[] = fields.map((field, index) => ({
      fp: `form-${index}`,
      url,
      tool: 'type',
      input: { ref: field, text: `value of ${field}` },
    }))
    steps.push({ fp: 'form-6', url, tool: 'select_option', input: { ref: 'shipping', options: ['Express'] } })
    expect(kindsByStep(steps, { fp: 'form-7', url }).flat()).toEqual([])
  })

  test('scrolling a long page, then once more at the bottom', () => {
    const url = 'https://blog.test/long-article'
    const steps: Step[] = Array.from({ length: 10 }, (_, index) => ({
      fp: `scroll-${index}`,
      url,
      tool: 'scroll',
      input: { direction: 'down' },
    }))
    steps.push({ fp: 'scroll-10', url, tool: 'scroll', input: { direction: 'down' } })
    expect(kindsByStep(steps, { fp: 'scroll-10', url }).flat()).toEqual([])
  })

  test('waiting for a page that is visibly loading, then using it', () => {
    const url = 'https://reports.test/export'
    const steps: Step[] = [
      { fp: 'form', url, tool: 'click', input: { ref: 'export' } },
      ...[1, 2, 3, 4, 5].map(
        (): Step => ({ fp: 'spinner', url, loading: true, tool: 'wait', input: { seconds: 5 } }),
      ),
      { fp: 'ready', url, tool: 'click', input: { ref: 'download' } },
    ]
    expect(kindsByStep(steps, { fp: 'downloaded', url }).flat()).toEqual([])
  })
})
