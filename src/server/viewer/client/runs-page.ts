import type { z } from 'zod'
import type { ProfileListSchema } from '../../http/profile-schemas.ts'
import type { RunPageSchema, RunRequestSchema } from '../../http/schemas.ts'
import type { ViewerCommon } from './common.ts'

/** A page of runs as `GET /v1/runs` answers it. */
type RunList = z.infer<typeof RunPageSchema>
type RunRow = RunList['runs'][number]

/**
 * Browser code of the runs page: the new-run form and the list, refreshed
 * while the tab is visible. Served as source text (see assets.ts): it must
 * stay self-contained, and reaches the shared helpers only through `common`.
 */
export function runsPage(common: ViewerCommon): void {
  const { api, byId, el, errorText, statusBadge, duration, cost } = common
  const refreshMs = 2000

  const form = byId<HTMLFormElement>('new-run')
  const formError = byId('new-run-error')
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    void startRun()
  })

  async function startRun(): Promise<void> {
    formError.textContent = ''
    const value = (id: string) => byId<HTMLInputElement>(id).value.trim()
    const request: z.input<typeof RunRequestSchema> = { task: value('task') }
    if (value('start-url')) request.startUrl = value('start-url')
    if (value('model')) request.model = value('model')
    if (value('max-turns')) request.maxTurns = Number(value('max-turns'))
    const domains = value('allowed-domains')
      .split(/[\s,]+/)
      .filter(Boolean)
    if (domains.length) request.allowedDomains = domains
    if (value('profile')) request.profile = value('profile')
    const browser = {
      ...(value('device') ? { device: value('device') } : {}),
      ...(value('locale') ? { locale: value('locale') } : {}),
      ...(value('timezone') ? { timezoneId: value('timezone') } : {}),
    }
    if (Object.keys(browser).length > 0) request.browser = browser
    const instructions = byId<HTMLTextAreaElement>('instructions').value.trim()
    if (instructions) request.instructions = instructions
    if (byId<HTMLInputElement>('vision').checked) request.vision = true
    const button = form.querySelector('button')
    if (button) button.disabled = true
    try {
      const response = await api('/v1/runs', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request),
      })
      if (!response.ok) {
        formError.textContent = await errorText(response)
        return
      }
      const id = response.headers.get('x-run-id')
      // The run goes on without this stream: the run page follows it on its own.
      void response.body?.cancel()
      if (id) location.assign(`/runs/${encodeURIComponent(id)}`)
    } catch (error) {
      if (error instanceof Error && error.message !== 'unauthorized')
        formError.textContent = `The run could not be started: ${error.message}`
    } finally {
      if (button) button.disabled = false
    }
  }

  const filter = byId<HTMLSelectElement>('status-filter')
  filter.addEventListener('change', () => void refresh())
  let runs: RunRow[] = []
  let timer: ReturnType<typeof setTimeout> | undefined

  async function refresh(): Promise<void> {
    clearTimeout(timer)
    try {
      const response = await api('/v1/runs?limit=100')
      if (!response.ok) throw new Error(await errorText(response))
      runs = ((await response.json()) as RunList).runs
      byId('runs-error').textContent = ''
      render()
      await refreshProfiles()
    } catch (error) {
      if (error instanceof Error && error.message === 'unauthorized') return
      byId('runs-error').textContent = `The runs could not be loaded: ${String(error)}`
    }
    // Live while someone looks; a hidden tab stops asking and catches up when shown again.
    if (!document.hidden) timer = setTimeout(() => void refresh(), refreshMs)
  }
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden) void refresh()
  })

  function render(): void {
    const shown = runs.filter((run) => !filter.value || run.status === filter.value)
    const rows = shown.map((run) => {
      const status = el('span')
      statusBadge(status, run.status)
      return el(
        'tr',
        { 'data-run-id': run.id },
        el('td', {}, status),
        el('td', { class: 'task' }, el('a', { href: `/runs/${encodeURIComponent(run.id)}` }, run.task)),
        el('td', { class: 'hide-narrow' }, run.model),
        el('td', { class: 'num' }, String(run.steps)),
        el('td', { class: 'num hide-narrow' }, cost(run)),
        el('td', { class: 'num' }, duration(run.createdAt, run.finishedAt)),
      )
    })
    byId('runs').replaceChildren(...rows)
    byId('runs-empty').hidden = shown.length > 0
  }

  /** Names, sites, sizes and times: the API never answers a profile's values, so the page cannot show one. */
  async function refreshProfiles(): Promise<void> {
    const response = await api('/v1/profiles')
    if (!response.ok) return
    const { profiles } = (await response.json()) as z.infer<typeof ProfileListSchema>
    const rows = profiles.map((profile) =>
      el(
        'tr',
        { 'data-profile': profile.name },
        el('td', {}, profile.name),
        el('td', {}, profile.domains.join(', ')),
        el('td', { class: 'num hide-narrow' }, `${profile.size} B`),
        el('td', { class: 'hide-narrow' }, new Date(profile.updatedAt).toLocaleString()),
        el(
          'td',
          {},
          profile.lastRunId
            ? el('a', { href: `/runs/${encodeURIComponent(profile.lastRunId)}` }, profile.lastRunId)
            : 'imported',
        ),
      ),
    )
    byId('profiles').replaceChildren(...rows)
    byId('profiles-empty').hidden = profiles.length > 0
  }

  common.whenAuthorized(() => void refresh())
}
