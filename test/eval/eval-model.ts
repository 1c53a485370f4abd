import {
  actionTurn,
  doneTurn,
  type FakeRequest,
  type FakeTurn,
  navigateTurn,
  promptText,
} from '../support/models/fake-openai.ts'

/**
 * The model of the eval tests: answers each request from the task in its
 * prompt and the step it is at, so runs of the suite can go in any order
 * and at once.
 */
export function evalTestTurn(request: FakeRequest): FakeTurn {
  const prompt = promptText(request)
  const step = Number(/<step>Step (\d+) of/.exec(prompt)?.[1] ?? '1')
  if (prompt.includes('Say hello to the tester.')) return doneTurn('hello, tester', true)
  if (prompt.includes('Open the done page at')) {
    const url = /Open the done page at (\S+done\.html#done)/.exec(prompt)?.[1] ?? ''
    return step === 1 ? navigateTurn(url) : doneTurn('Opened it.', true)
  }
  // The model claims success with the wrong answer: passed must still be false.
  if (prompt.includes('Tell me the price of the lamp.')) return doneTurn('The lamp costs 10 euros.', true)
  if (prompt.includes('Look at the start page.')) return doneTurn('I looked.', true)
  if (prompt.includes('Refuse this task.')) return { refusal: "I'm sorry, I can't help with that." }
  // Types a secret into the page, where a `js` check can read it back.
  if (prompt.includes('Type the password.')) {
    const ref = /textbox "Password".*?\[ref=(\w+)\]/.exec(prompt)?.[1] ?? 'missing'
    return step === 1
      ? actionTurn('type', { ref, text: '<secret>password</secret>' })
      : doneTurn('Typed it.', true)
  }
  // 500k input and 100k output tokens: $0.70 at the eval tests' price of the model.
  if (prompt.includes('Spend the whole budget.'))
    return actionTurn('wait', { seconds: 1 }, { usage: { promptTokens: 500_000, completionTokens: 100_000 } })
  // Keeps its run (and its slot) busy until it is aborted or out of turns.
  if (prompt.includes('Wait for the slow page.')) return actionTurn('wait', { seconds: 10 })
  return doneTurn('Unknown task.', false)
}
