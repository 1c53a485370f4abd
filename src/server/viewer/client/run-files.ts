import type { z } from 'zod'
import type { ArtifactListSchema, DownloadListSchema } from '../../http/schemas.ts'
import type { ViewerCommon } from './common.ts'

type DownloadList = z.infer<typeof DownloadListSchema>
type ArtifactList = z.infer<typeof ArtifactListSchema>

/**
 * Browser code: the run page's files, once the run is over: its recording
 * (to replay or export), its artifacts (trace, videos, HAR) and what its
 * browser downloaded. Each is fetched with
 * the API's bearer token and saved from memory: a plain link would go without
 * the token. Served as source text (see assets.ts): self-contained.
 */
export function runFiles(common: ViewerCommon, base: string, runId: string) {
  const { api, byId, el, errorText } = common
  const box = byId('downloads')
  // Inside the function: only its source is served.
  const artifactTitles: Record<ArtifactList['artifacts'][number]['kind'], string> = {
    trace: 'The run’s Playwright trace: open it with npx playwright show-trace',
    video: 'A video of the run’s page',
    har: 'The run’s network traffic (HAR): import it in the browser’s Network panel',
  }

  async function save(path: string, name: string): Promise<void> {
    const response = await api(path)
    if (!response.ok) {
      byId('run-error').textContent = await errorText(response)
      return
    }
    const url = URL.createObjectURL(await response.blob())
    el('a', { href: url, download: name }).click()
    setTimeout(() => URL.revokeObjectURL(url), 60_000)
  }

  function button(label: string, title: string, path: string, name: string): HTMLElement {
    const element = el('button', { type: 'button', class: 'secondary', title }, label)
    element.addEventListener('click', () => void save(path, name).catch(() => {}))
    return element
  }

  function size(bytes: number): string {
    if (bytes < 1024) return `${bytes} B`
    if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
    return `${(bytes / 1024 / 1024).toFixed(1)} MB`
  }

  /** Lists the files; none on a viewer of one run (`sextant run`'s), which serves neither. */
  async function load(): Promise<void> {
    const [response, artifactResponse] = await Promise.all([
      api(`${base}/downloads`),
      api(`${base}/artifacts`),
    ])
    if (!response.ok) return
    const list = (await response.json()) as DownloadList
    const artifacts = artifactResponse.ok ? ((await artifactResponse.json()) as ArtifactList).artifacts : []
    box.replaceChildren(
      el('span', {}, 'Files'),
      button(
        'Recording',
        'The run’s recording: replay it, or export it as a Playwright test (sextant runs export)',
        `${base}/recording`,
        `${runId}.recording.json`,
      ),
      ...artifacts.map((file) =>
        button(
          `${file.name} (${size(file.bytes)})`,
          artifactTitles[file.kind],
          file.url,
          `${runId}-${file.name}`,
        ),
      ),
      ...list.downloads.map((file) =>
        button(`${file.name} (${size(file.bytes)})`, 'Downloaded by the run’s browser', file.url, file.name),
      ),
    )
    box.hidden = false
  }

  return { load }
}
