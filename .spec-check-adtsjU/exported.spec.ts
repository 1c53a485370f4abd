import { expect, test } from '@playwright/test'

// Exported by Sextant from run run_mx12ksl0785dda542a012de8.

// Parameters: the recording's variables (an environment variable of the same name overrides each).
const targetValue = process.env['target'] ?? 'Buy milk'
const classValue = process.env['class'] ?? 'unused'
const processValue = process.env['process'] ?? 'unused'
const startUrl = process.env.START_URL ?? 'http://127.0.0.1:42791/vanillajs/index.html'

/** A secret the recording typed, read from the environment: never written in the spec. */
function secret(name: string): string {
  const value = process.env[name]
  if (value === undefined) throw new Error(`Set the environment variable ${name} (a secret the test types).`)
  return value
}

/** A recorded URL on the recorded start page's origin, moved to the start URL's. */
function at(url: string): string {
  const recorded = 'http://127.0.0.1:42791'
  return recorded && url.startsWith(recorded) ? new URL(url.slice(recorded.length), startUrl).href : url
}

test.use({ launchOptions: { executablePath: '/usr/bin/chromium' } })

test(`Add the todos "${targetValue}" and "Walk dog", mark "${targetValue}" done, then clear completed todos.`, async ({ page }) => {
  await page.goto(startUrl)
  await test.step(`1. Add the todo ${targetValue}.`, async () => {
    // Add the todo {{target}}.
    const target = page.getByRole('textbox', { name: 'What needs to be done?', exact: true })
    await target.fill(targetValue)
    await target.press('Enter')
    await expect(page.getByText(targetValue).first()).toBeVisible()
  })
  await test.step('2. Add the todo Walk dog.', async () => {
    // Add the todo Walk dog.
    const target = page.getByRole('textbox', { name: 'What needs to be done?', exact: true })
    await target.fill('Walk dog')
    await target.press('Enter')
    await expect(page.getByText('Walk dog').first()).toBeVisible()
  })
  await test.step(`3. Mark ${targetValue} as done.`, async () => {
    // Mark {{target}} as done.
    const target = page.getByRole('listitem').filter({ hasText: targetValue }).getByRole('checkbox')
    await target.click()
  })
  await test.step('4. Clear the completed todos.', async () => {
    // Clear the completed todos.
    const target = page.getByRole('button', { name: 'Clear completed (1)', exact: true })
    await target.click()
    await expect(target).toBeHidden()
  })
  await test.step('5. Report.', async () => {
    // Report.
    // The run's result: Added {{target}} and Walk dog; {{target}} was done and cleared.
  })
})
