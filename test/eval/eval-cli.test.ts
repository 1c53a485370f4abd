import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type EvalReport, EvalReportSchema } from '../../src/events/eval-events.ts'
import { SqliteRunStore } from '../../src/store/sqlite-store.ts'
import { startCli } from '../cli/support.ts'
import { type FakeOpenAI, startFakeOpenAI } from '../support/models/fake-openai.ts'
import { evalTestTurn } from './eval-model.ts'

const suite = join(import.meta.dirname, 'fixtures/suite.yaml')
const passing = join(import.meta.dirname, 'fixtures/passing.yaml')
let fake: FakeOpenAI
const dir = mkdtempSync(join(tmpdir(), 'sextant-eval-'))

beforeAll(async () => {
  fake = await startFakeOpenAI({ fallback: evalTestTurn })
  writeFileSync(
    join(dir, 'prices.json'),
    JSON.stringify({ models: { 'fake/eval-model': { input: 1, output: 2 } } }),
  )
})
afterAll(async () => {
  await fake?.close()
  rmSync(dir, { recursive: true, force: true })
})

function env(): NodeJS.ProcessEnv {
  return {
    SEXTANT_MODEL: 'fake/eval-model',
    SEXTANT_BASE_URL: fake.baseUrl,
    SEXTANT_DB: join(dir, 'eval.db'),
    SEXTANT_RUNS_DIR: join(dir, 'runs'),
    SEXTANT_PRICES: join(dir, 'prices.json'),
  }
}

function readReport(path: string): EvalReport {
  return EvalReportSchema.parse(JSON.parse(readFileSync(path, 'utf8')))
}

const byId = (report: EvalReport, id: string) => report.tasks.find((task) => task.id === id)

describe('sextant eval', () => {
  test('four tasks, two pass and two fail for different reasons: exit 1, the JSON, the JUnit, recorded runs', async () => {
    const json = join(dir, 'first.json')
    const junit = join(dir, 'first.xml')
    const cli = startCli(
      ['eval', suite, '--serve-fixtures', '--concurrency', '2', '--json', json, '--junit', junit],
      env(),
    )
    expect(await cli.exited, cli.stderr()).toBe(1)

    const report = readReport(json)
    expect(report).toMatchObject({ suite: 'eval-test', models: ['fake/eval-model'], repeat: 1 })
    expect(report.tasks.map((task) => [task.id, task.passed, task.total])).toEqual([
      ['pass-result', 1, 1],
      ['pass-page', 1, 1],
      ['fail-result', 0, 1],
      ['fail-js-throws', 0, 1],
    ])
    // The model claimed success on both failures: reported beside, never trusted.
    const wrongAnswer = byId(report, 'fail-result')?.runs[0]
    expect(wrongAnswer).toMatchObject({ passed: false, modelSuccess: true, reason: 'model_stop' })
    expect(wrongAnswer?.failedChecks).toEqual([
      expect.stringMatching(/^resultIncludes: the result does not contain "42"/),
    ])
    // A check that throws is a failed check with its message, not a crash.
    const thrown = byId(report, 'fail-js-throws')?.runs[0]
    expect(thrown?.failedChecks).toEqual([
      expect.stringMatching(/^js: window.notThere.property === 1 threw: .*TypeError/),
    ])
    expect(byId(report, 'pass-page')?.runs[0]).toMatchObject({ passed: true, steps: 2, failedChecks: [] })

    expect(report.totals).toMatchObject({ runs: 4, passedRuns: 2, passAt1: 0.5, passAllK: 0.5 })
    // Priced through SEXTANT_PRICES: a number, not null.
    expect(report.totals.costUsd).toBeGreaterThan(0)

    const store = new SqliteRunStore(join(dir, 'eval.db'))
    for (const task of report.tasks) {
      expect(await store.getRun(task.runs[0]?.runId ?? '')).toMatchObject({ status: 'completed' })
    }
    await store.close()

    const xml = readFileSync(junit, 'utf8')
    expect(xml.match(/<testcase /g)).toHaveLength(4)
    expect(xml).toMatch(/<testsuites name="eval-test" tests="4" failures="2"/)
    expect(xml).toMatch(/name="fail-js-throws"[\s\S]*?<failure message="js: [^"]*threw/)

    // `sextant runs` lists them with their cost.
    const runs = startCli(['runs'], env())
    expect(await runs.exited).toBe(0)
    expect(runs.stdout()).toMatch(/COST/)
    expect(runs.stdout()).toMatch(
      new RegExp(`${report.tasks[0]?.runs[0]?.runId}\\s+completed\\s+1\\s+\\d+\\s+\\$0\\.\\d+`),
    )

    const out = cli.stdout()
    expect(out).toMatch(/\[4\/4\] 2 passing/)
    expect(out).toMatch(/pass-page\s+fake\/eval-model\s+1\/1\s+2\s/)
    expect(out).toContain('fake/eval-model: 2/4 runs passed · pass@1 50%')
  })

  test('--repeat runs each task K times; --compare lists regressions and improvements', async () => {
    // An earlier report in which fail-result passed and pass-result failed.
    const previous = readReport(join(dir, 'first.json'))
    for (const task of previous.tasks) {
      if (task.id === 'fail-result') task.passed = 1
      if (task.id === 'pass-result') task.passed = 0
    }
    const previousPath = join(dir, 'previous.json')
    writeFileSync(previousPath, JSON.stringify(previous))

    const json = join(dir, 'repeat.json')
    const cli = startCli(
      ['eval', suite, '--serve-fixtures', '--repeat', '2', '--json', json, '--compare', previousPath],
      env(),
    )
    expect(await cli.exited, cli.stderr()).toBe(1)
    const report = readReport(json)
    expect(report.repeat).toBe(2)
    expect(report.tasks.map((task) => `${task.id} ${task.passed}/${task.total}`)).toEqual([
      'pass-result 2/2',
      'pass-page 2/2',
      'fail-result 0/2',
      'fail-js-throws 0/2',
    ])
    expect(byId(report, 'pass-page')?.runs.map((run) => run.attempt)).toEqual([1, 2])
    expect(report.totals).toMatchObject({ runs: 8, passedRuns: 4, passAllK: 0.5 })
    const out = cli.stdout()
    expect(out).toContain('pass^2 50%')
    expect(out).toMatch(/regression\s+fail-result \(fake\/eval-model\): 1\/1 → 0\/2/)
    expect(out).toMatch(/improvement\s+pass-result \(fake\/eval-model\): 0\/1 → 2\/2/)
  })

  test('exit 0 when every run passed', async () => {
    const cli = startCli(['eval', passing, '--serve-fixtures'], env())
    expect(await cli.exited, cli.stderr()).toBe(0)
  })

  test('usage errors exit 2 before any browser starts: a bad suite names its line; a missing flag says which', async () => {
    const bad = join(dir, 'bad.yaml')
    writeFileSync(
      bad,
      'tasks:\n  - id: a\n    task: t\n    startUrl: http://x\n    check:\n      resultInclude: x\n',
    )
    const badSuite = startCli(['eval', bad], env())
    expect(await badSuite.exited).toBe(2)
    expect(badSuite.stderr()).toMatch(/line 6: tasks\.0\.check: Unrecognized key: "resultInclude"/)

    const noFixtures = startCli(['eval', suite], env())
    expect(await noFixtures.exited).toBe(2)
    expect(noFixtures.stderr()).toContain('uses {{fixtures}}: run with --serve-fixtures')

    const badRepeat = startCli(['eval', suite, '--repeat', '0'], env())
    expect(await badRepeat.exited).toBe(2)
    expect(badRepeat.stderr()).toContain('--repeat must be an integer from 1 to 100')
  })
})

test('a task with maxCostUsd ends budget_exceeded once its priced run costs that much, and fails', async () => {
  const limited = join(dir, 'limited.yaml')
  writeFileSync(
    limited,
    'tasks:\n  - id: costly\n    task: Spend the whole budget.\n    startUrl: about:blank\n    maxCostUsd: 0.5\n    check:\n      resultIncludes: anything\n',
  )
  const json = join(dir, 'limited.json')
  const cli = startCli(['eval', limited, '--json', json], env())
  expect(await cli.exited, cli.stderr()).toBe(1)
  const [task] = readReport(json).tasks
  expect(task).toMatchObject({ id: 'costly', passed: 0, total: 1 })
  expect(task?.runs[0]).toMatchObject({ reason: 'budget_exceeded', passed: false })

  // The same suite on a model without a price is refused before any browser starts: its cost could not be counted.
  const unpriced = startCli(['eval', limited], { ...env(), SEXTANT_MODEL: 'fake/unpriced-model' })
  expect(await unpriced.exited).toBe(2)
  expect(unpriced.stderr()).toContain(
    'task costly: maxCostUsd needs a priced model, and fake/unpriced-model has no price',
  )
}, 90_000)
