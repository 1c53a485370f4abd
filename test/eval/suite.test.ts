import { describe, expect, test } from 'vitest'
import { failedChecks } from '../../src/eval/checks.ts'
import { compareReports, totalsOf } from '../../src/eval/eval-report.ts'
import { missingSecrets, secretsFromEnvironment, secretsFromRequest } from '../../src/eval/eval-secrets.ts'
import type { FinalPage } from '../../src/eval/final-page.ts'
import { loadSuite, parseSuite, SuiteError } from '../../src/eval/suite.ts'
import type { EvalReport, EvalRun, EvalTask } from '../../src/events/eval-events.ts'

function problemsOf(text: string): string[] {
  try {
    parseSuite(text, 'suite.yaml')
  } catch (error) {
    if (error instanceof SuiteError) return error.problems
    throw error
  }
  throw new Error('the suite was accepted')
}

describe('suite files', () => {
  test('YAML errors name the line of the value, or of the mapping that misses a key', () => {
    const problems = problemsOf(
      [
        'name: s',
        'tasks:',
        '  - id: one',
        '    task: t',
        '    startUrl: http://a.test/',
        '    maxTurns: 0',
        '    check: { resultMatches: "([" }',
        '  - id: one',
        '    task: t',
        '    check: {}',
      ].join('\n'),
    )
    expect(problems).toEqual([
      expect.stringMatching(/^line 6: tasks\.0\.maxTurns: Too small/),
      expect.stringMatching(/^line 7: tasks\.0\.check\.resultMatches: The pattern "\(\[" cannot be used: /),
      expect.stringMatching(/^line 8: tasks\.1\.startUrl: .*expected string/),
      'line 10: tasks.1.check: needs at least one of resultIncludes, resultMatches, urlMatches, pageIncludes, js, dataMatches',
    ])
    const twice =
      'tasks:\n  - { id: a, task: t, startUrl: u, check: { js: "1" } }\n  - { id: a, task: t, startUrl: u, check: { js: "1" } }'
    expect(problemsOf(twice)).toEqual(['line 3: tasks.1.id: duplicate task id "a"'])
  })

  test('an output schema that is not one names its line; so does a dataMatches /regex/ that is not one', () => {
    const problems = problemsOf(
      [
        'tasks:',
        '  - id: a',
        '    task: t',
        '    startUrl: http://a.test/',
        '    output: { type: object, required: price }',
        '    check: { dataMatches: { price: "/([/" } }',
      ].join('\n'),
    )
    expect(problems).toEqual([
      expect.stringMatching(
        /^line 5: tasks\.0\.output: "output" is not a valid JSON Schema: output\/required must be array/,
      ),
      expect.stringMatching(/^line 6: tasks\.0\.check\.dataMatches: The pattern "\(\[" cannot be used: /),
    ])
  })

  test('a pattern the linear-time engine cannot run (backreference, lookaround) is refused, naming it', () => {
    const problems = problemsOf(
      [
        'tasks:',
        '  - id: a',
        '    task: t',
        '    startUrl: http://a.test/',
        '    check: { resultMatches: "(a)\\\\1", urlMatches: "/x(?=y)/i", dataMatches: { p: "/(?<!a)b/" } }',
      ].join('\n'),
    )
    expect(problems).toEqual([
      expect.stringMatching(
        /^line 5: tasks\.0\.check\.resultMatches: The pattern "\(a\)\\\\1" cannot be used: .*linear-time engine \(RE2\), without backreferences or lookaround\.$/,
      ),
      expect.stringMatching(/^line 5: tasks\.0\.check\.urlMatches: The pattern "x\(\?=y\)" cannot be used: /),
      expect.stringMatching(
        /^line 5: tasks\.0\.check\.dataMatches: The pattern "\(\?<!a\)b" cannot be used: /,
      ),
    ])
  })

  test('JSON is read by the same parser, with lines too; syntax errors have theirs', () => {
    expect(
      problemsOf(
        '{\n  "tasks": [\n    { "id": "a", "task": "t", "startUrl": 5, "check": { "js": "1" } }\n  ]\n}',
      ),
    ).toEqual([expect.stringMatching(/^line 3: tasks\.0\.startUrl: .*expected string/)])
    expect(problemsOf('tasks:\n  - id: a\n   task: [')[0]).toBe('line 3: Sequence item without - indicator')
  })

  test('the shipped todomvc suite is valid and its fixtures are the todomvc package', () => {
    const loaded = loadSuite('examples/suites/todomvc.yaml')
    expect(loaded.suite.tasks.map((task) => task.id)).toEqual([
      'add-one',
      'complete-one',
      'count-left',
      'active-filter',
    ])
    expect(loaded.fixturesDir).toMatch(/todomvc[/\\]examples$/)
  })
})

describe('secrets of an eval', () => {
  const suite = parseSuite(
    [
      'tasks:',
      '  - { id: login, task: t, startUrl: u, secrets: { pw: EVAL_PW }, check: { js: "1" } }',
      '  - { id: plain, task: t, startUrl: u, check: { js: "1" } }',
    ].join('\n'),
  )

  test('the CLI reads the variables a suite names from the environment it is given', () => {
    expect(secretsFromEnvironment(suite, { EVAL_PW: 'hunter2' })).toEqual({ login: { pw: 'hunter2' } })
    expect(missingSecrets(suite, {})).toEqual([
      'task login: secret "pw" needs the environment variable EVAL_PW',
    ])
  })

  test('over HTTP, values come from the request; a variable named in the suite or an unknown task is refused', () => {
    expect(secretsFromRequest(suite, { secrets: { pw: 'x1' } })).toMatchObject({
      ok: false,
      problems: [expect.stringContaining('secret "pw" names the environment variable EVAL_PW')],
    })
    const withoutVariables = parseSuite(
      'tasks:\n  - { id: a, task: t, startUrl: u, check: { js: "1" } }\n  - { id: b, task: t, startUrl: u, check: { js: "1" } }',
    )
    expect(
      secretsFromRequest(withoutVariables, {
        secrets: { pw: 'shared-1', otp: 'o-1' },
        taskSecrets: { b: { pw: { value: 'only-b', domains: ['b.test'] } } },
      }),
    ).toEqual({
      ok: true,
      secrets: {
        a: { pw: 'shared-1', otp: 'o-1' },
        b: { pw: { value: 'only-b', domains: ['b.test'] }, otp: 'o-1' },
      },
    })
    expect(secretsFromRequest(withoutVariables, { taskSecrets: { c: { pw: 'x' } } })).toEqual({
      ok: false,
      problems: ['taskSecrets.c: the suite has no task "c"'],
    })
  })
})

describe('checks', () => {
  const page: FinalPage = {
    url: 'http://a.test/list#/active',
    text: '# Todos\n\nBuy milk',
    js: new Map([
      ['ok()', { ok: true, value: true }],
      ['count()', { ok: true, value: 2 }],
      ['boom()', { ok: false, error: 'The script failed: ReferenceError: boom is not defined' }],
    ]),
  }
  const result = { success: true, text: 'Added "Buy milk".' }

  test('every key must hold; each failure says what was found instead', () => {
    expect(
      failedChecks(
        { resultIncludes: 'buy MILK', urlMatches: '#/active$', pageIncludes: ['Buy milk'], js: 'ok()' },
        result,
        page,
      ),
    ).toEqual([])
    expect(
      failedChecks({ resultMatches: '^Removed', urlMatches: '/done$', js: 'count()' }, result, page),
    ).toEqual([
      'resultMatches: the result does not match ^Removed (result: "Added \\"Buy milk\\".")',
      'urlMatches: the final URL http://a.test/list#/active does not match /done$',
      'js: count() returned 2, not true',
    ])
  })

  test('a backtracking pattern meets the text that defeats backtracking engines and still answers', () => {
    const hostile = `${'A'.repeat(31)}!`
    const pattern = '^([A-Za-z]+\\s?)+$'
    // On a backtracking engine each of these held the thread for minutes.
    expect(
      failedChecks(
        {
          resultMatches: pattern,
          urlMatches: `/${pattern}/i`,
          dataMatches: { name: `/${pattern}/` },
        },
        { ...result, text: hostile, data: { name: hostile } },
        { ...page, url: hostile },
      ),
    ).toEqual([
      `resultMatches: the result does not match ${pattern} (result: "${hostile}")`,
      `urlMatches: the final URL ${hostile} does not match /${pattern}/i`,
      `dataMatches: name is "${hostile}", which does not match /${pattern}/`,
    ])
  })

  test('dataMatches: missing data or a missing path is a failed check that says so', () => {
    const withData = { ...result, data: { items: [{ name: 'lamp', price: 12.5 }] } }
    expect(
      failedChecks(
        { dataMatches: { 'items.0.name': 'lamp', 'items.0.price': '/^12\\.5$/' } },
        withData,
        page,
      ),
    ).toEqual([])
    expect(failedChecks({ dataMatches: { 'items.1.name': 'lamp' } }, withData, page)).toEqual([
      'dataMatches: items.1.name is not in the data',
    ])
    expect(failedChecks({ dataMatches: { price: 1 } }, result, page)).toEqual([
      'dataMatches: the run gave no data',
    ])
  })

  test('a check that throws, or a page that could not be read, is a failed check with its message', () => {
    expect(failedChecks({ js: 'boom()' }, result, page)).toEqual([
      'js: boom() threw: The script failed: ReferenceError: boom is not defined',
    ])
    expect(failedChecks({ pageIncludes: 'x', js: 'ok()' }, result, undefined)).toEqual([
      'pageIncludes: the final page could not be read (the run had no browser page)',
      'js: not evaluated (the run had no browser page)',
    ])
  })
})

describe('reports', () => {
  const run = (passed: boolean, costUsd: number | null): EvalRun => ({
    runId: 'run_x',
    attempt: 1,
    passed,
    modelSuccess: true,
    reason: 'model_stop',
    resultText: '',
    steps: 2,
    tokens: { input: 10, output: 2, cached: 4 },
    costUsd,
    durationMs: 100,
    failedChecks: [],
  })
  const task = (id: string, runs: EvalRun[]): EvalTask => ({
    id,
    model: 'm/m',
    passed: runs.filter((r) => r.passed).length,
    total: runs.length,
    runs,
  })

  test('pass@1 over runs, pass^K over tasks; one unknown cost makes the total unknown', () => {
    const totals = totalsOf([
      task('a', [run(true, 0.1), run(true, 0.2)]),
      task('b', [run(true, 0.1), run(false, 0.1)]),
    ])
    expect(totals).toMatchObject({ runs: 4, passedRuns: 3, passAt1: 0.75, passAllK: 0.5 })
    expect(totals.costUsd).toBeCloseTo(0.5, 10)
    expect(totalsOf([task('a', [run(true, 0.1), run(true, null)])]).costUsd).toBeNull()
  })

  test('--compare: regressions, improvements, new and missing tasks', () => {
    const report = (tasks: EvalTask[]): EvalReport => ({
      suite: 's',
      startedAt: '',
      finishedAt: '',
      models: ['m/m'],
      repeat: 1,
      tasks,
      totals: totalsOf(tasks),
      modelTotals: {},
    })
    const before = report([
      task('a', [run(true, 0)]),
      task('b', [run(false, 0)]),
      task('gone', [run(true, 0)]),
    ])
    const after = report([task('a', [run(false, 0)]), task('b', [run(true, 0)]), task('new', [run(true, 0)])])
    expect(compareReports(before, after).map((change) => `${change.kind} ${change.id}`)).toEqual([
      'regression a',
      'improvement b',
      'new new',
      'missing gone',
    ])
  })
})
