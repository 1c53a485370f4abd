import type { BrowserContext, Page } from 'playwright-core'
import { type Logger, silentLogger } from '../../log.ts'
import { AbortError, type AnyTool } from '../../tool.ts'
import { withDeadline } from '../../util/deadline.ts'
import { LineTokenCounter } from '../../util/tokens.ts'
import { browserTools } from '../actions/browser-actions.ts'
import type {
  BrowserFailure,
  BrowserSession,
  BrowserSessionOptions,
  PageObservation,
  SessionArtifacts,
  SessionLive,
  SessionPictures,
  SessionTakeover,
} from '../browser-session.ts'
import { resetRefusedPage } from '../network/scheme-guard.ts'
import { SessionNetworkGuard } from '../network/session-guard.ts'
import { ActionGate } from '../settle/action-gate.ts'
import { awaitLastEffects, type FinishReport } from '../settle/finish.ts'
import { lateTimersScript } from '../settle/late-timers.ts'
import type { NetworkActivity } from '../settle/network-activity.ts'
import { SettledPages } from '../settle/settled-pages.ts'
import { resolveRef } from '../view/element-resolver.ts'
import { type CapturedPage, capturePage } from '../view/page-capture.ts'
import { withActiveTitle } from '../view/page-view.ts'
import { locatorFor, RefRegistry } from '../view/stable-refs.ts'
import type { ArtifactRecorder } from './artifacts/artifact-recorder.ts'
import { BoundWarnings, defaultMaxTextChars } from './bounds.ts'
import { BrowserHealth } from './browser-health.ts'
import { DownloadSaver } from './downloads.ts'
import { applyPersonInput } from './live/person-input.ts'
import { screencast } from './live/screencast.ts'
import { NoteQueue } from './notes.ts'
import { observedView } from './observed-view.ts'
import { PageLog } from './page-log.ts'
import { capturedBox, viewportBox } from './pictures/screenshot.ts'
import { SecretFields } from './pictures/secret-masks.ts'
import { StepPictures } from './pictures/step-pictures.ts'
import { sessionRecording } from './session-recording.ts'
import { sessionSettings } from './session-settings.ts'
import { openStartPage } from './start-page.ts'
import { watchTab } from './tab-watch.ts'
import { type Tab, TabTracker } from './tabs.ts'
import type { BrowserToolSurface, ResolvedElement, SessionSettings } from './tool-surface.ts'

export interface StartSessionOptions {
  /** The network guard the context was opened behind (closed with the session). */
  guard?: SessionNetworkGuard
  /** Runs after the context is closed: the pool forgets the session, a standalone session closes its browser. */
  onClose?: () => Promise<void>
  /** The browser was connected to (ws, CDP), not launched: its loss is a lost connection, not an exit. */
  remote?: boolean
  /** Records the run's artifacts on this context (opened with its options): the session's `artifacts`. */
  recorder?: ArtifactRecorder
  logger?: Logger
}

/** Opens a run's session on its own context; the context is closed if starting fails. */
export async function startSession(
  context: BrowserContext,
  options: BrowserSessionOptions,
  signal: AbortSignal,
  extra: StartSessionOptions = {},
): Promise<BrowserSession> {
  const session = new PlaywrightSession(context, options, extra)
  try {
    await session.start(options, signal)
  } catch (error) {
    await session.close()
    throw error
  }
  return session
}

/** Observing again when a tab became active meanwhile: bounded, for a page that opens tabs without end. */
const maxObservePasses = 3

class PlaywrightSession implements BrowserSession, BrowserToolSurface {
  readonly settings: SessionSettings
  readonly notes = new NoteQueue()
  readonly pageLog = new PageLog()
  readonly secretFields = new SecretFields()
  readonly warnings = new BoundWarnings(this.notes)
  readonly tabs: TabTracker
  readonly #context: BrowserContext
  readonly #registry = new RefRegistry()
  readonly #lineTokens = new LineTokenCounter()
  readonly #downloads: DownloadSaver
  readonly #activity = new Map<Page, NetworkActivity>()
  readonly #lastUrls = new Map<Page, string>()
  readonly #settled = new SettledPages((page) => this.#activity.get(page))
  readonly #extra: StartSessionOptions
  readonly #logger: Logger
  readonly #guard: SessionNetworkGuard | undefined
  readonly #maxTextChars: number
  readonly #health: BrowserHealth
  readonly #gate = new ActionGate()
  /** The observation under way, which a screenshot asked for meanwhile waits for. */
  #observing: Promise<PageObservation> | undefined
  #tools: AnyTool[] | undefined
  /** The refs the latest page view showed, in its order: what screenshot labels mark. */
  #viewRefs: string[] = []
  #closing: Promise<void> | undefined
  /** Aborted as the session closes: ends its live frames and its pictures. */
  readonly #closed = new AbortController()
  readonly #pictures = new StepPictures({
    fields: this.secretFields,
    registry: this.#registry,
    gate: this.#gate,
    closed: this.#closed.signal,
  })
  readonly pictures: SessionPictures = {
    screenshot: (options, signal) => {
      const observed = this.#observing?.catch(() => {})
      return this.#gate.hold(
        (async () => {
          await observed
          return this.#pictures.take(await this.activePage(), this.#viewRefs, options, signal)
        })(),
      )
    },
    elementBox: async (ref, signal) => {
      const page = await this.activePage()
      const entry = this.#registry.page === page ? this.#registry.get(ref) : undefined
      if (!entry || signal.aborted) return undefined
      return capturedBox(page, this.#registry, ref) ?? viewportBox(page, locatorFor(page, entry.target))
    },
  }
  readonly live: SessionLive = {
    screencast: (onFrame, options, signal) =>
      screencast(
        this.tabs,
        this.secretFields,
        onFrame,
        options,
        AbortSignal.any([signal, this.#closed.signal]),
      ),
  }
  readonly takeover: SessionTakeover = {
    input: async (input, signal) => applyPersonInput(await this.activePage(), input, signal),
  }
  readonly artifacts: SessionArtifacts | undefined
  readonly recording = sessionRecording({
    activePage: () => this.activePage(),
    registry: this.#registry,
    pictureScale: () => this.#pictures.scale,
    settled: this.#settled,
  })

  constructor(context: BrowserContext, options: BrowserSessionOptions, extra: StartSessionOptions) {
    this.#context = context
    this.#extra = extra
    this.#logger = extra.logger ?? silentLogger()
    this.#guard = extra.guard
    this.#health = new BrowserHealth(context, extra.remote ?? false)
    this.#maxTextChars = options.maxTextChars ?? defaultMaxTextChars
    this.settings = sessionSettings(options, extra.guard?.policy)
    this.#downloads = new DownloadSaver(options, this.notes)
    this.tabs = new TabTracker(context, this.notes, (tab) => this.#watchTab(tab), {
      maxTabs: options.maxTabs,
      maxTextChars: this.#maxTextChars,
      warnings: this.warnings,
    })
    this.tabs.onActiveChange(() => this.#settled.activeChanged(this.tabs.current?.page))
    this.artifacts = extra.recorder?.capability(this.#logger, () => this.#closeContext())
  }

  async start(options: BrowserSessionOptions, signal: AbortSignal): Promise<void> {
    const guard = this.#guard ?? (await SessionNetworkGuard.open(options, false))
    await this.pageLog.watch(this.#context)
    await guard.install(this.#context, (refusal) => {
      this.notes.push(refusal.note)
      this.pageLog.guardRefused(refusal)
    })
    // Before the page's scripts: libraries that keep their own setTimeout (a debounce) get the settle's hook.
    await this.#context.addInitScript(lateTimersScript)
    const tab = await this.tabs.open()
    if (!options.startUrl) return
    await openStartPage(tab, options.startUrl, this.settings, this.notes, signal)
    this.#lastUrls.set(tab.page, tab.page.url())
  }

  #watchTab(tab: Tab): () => void {
    const { page } = tab
    const { activity, stop } = watchTab(tab, {
      dialogs: this.settings.dialogs,
      allowUnsafeSchemes: this.settings.policy.allowUnsafeSchemes ?? false,
      notes: this.notes,
      health: this.#health,
      downloads: this.#downloads,
    })
    this.#activity.set(page, activity)
    return () => {
      stop()
      this.#activity.delete(page)
      this.#lastUrls.delete(page)
      this.#settled.forget(page)
    }
  }

  observe(signal: AbortSignal): Promise<PageObservation> {
    const observing = this.#observe(signal)
    this.#observing = observing
    return observing
  }

  async #observe(signal: AbortSignal): Promise<PageObservation> {
    if (this.#closing) throw new Error('The browser session is closed.')
    const started = performance.now()
    for (let pass = 1; ; pass++) {
      const built = Promise.withResolvers<void>()
      try {
        // The picture starts at the first frame after the action, while the quiet window runs: it is kept if the
        // page observed is that page, unchanged since; otherwise it starts again once the page has settled.
        const { page, settled, unchangedSinceFramed } = await this.#settled.beforeObserving(
          () => this.activePage(),
          signal,
          (framed) => this.#pictures.start(framed, built.promise),
        )
        await this.#downloads.settle(1500, signal)
        const reset = !this.settings.policy.allowUnsafeSchemes && (await resetRefusedPage(page))
        if (!unchangedSinceFramed || reset) this.#pictures.start(page, built.promise)
        const url = this.warnings.cut('url', page.url(), this.#maxTextChars)
        const previous = this.#lastUrls.get(page)
        if (previous !== undefined && previous !== url) this.notes.push(`Navigated to ${url.slice(0, 300)}`)
        this.#lastUrls.set(page, url)
        if (!settled) this.notes.push('The page has not finished loading; the view shows it as it is now.')
        const untitled = await this.tabs.list(page)
        const viewStarted = performance.now()
        const view = await observedView(
          page,
          this.#registry,
          { tabs: untitled, ...this.#viewOptions },
          signal,
        )
        const title = this.warnings.cut('title', view.title, this.#maxTextChars)
        const tabs = withActiveTitle(untitled, title)
        // A tab that opened and became active while the view was built is named in the notes ("it is now the
        // active tab"): the view must be that tab's, so the notes are taken with it, before the page log's read
        // lets one more open. Asked without opening a tab: a browser that died must fail the next step, not this.
        const now = this.tabs.current?.page
        if (pass < maxObservePasses && !view.failed && now !== undefined && now !== page) continue
        const [notes, warnings] = [this.notes.drain(), this.notes.drainWarnings()]
        if (!view.failed) this.#health.pageObserved()
        this.#viewRefs = [...view.text.matchAll(/\[ref=([\w-]+)\]/g)].map((match) => match[1] ?? '')
        const pageLog = await this.pageLog.readNew(signal)
        return {
          url,
          title,
          tabs,
          refs: view.refs,
          pageView: view.text,
          tokens: view.tokens,
          fingerprint: view.fingerprint,
          notes,
          warnings,
          ...(pageLog ? { pageLog } : {}),
          timings: { settleMs: viewStarted - started, viewMs: performance.now() - viewStarted },
        }
      } finally {
        // Covers over secret fields wait for the view: on every way out of this pass, they may go up.
        built.resolve()
      }
    }
  }

  get #viewOptions() {
    const { tokenCap, runId } = this.settings
    return { tokenCap, lineTokens: this.#lineTokens, logger: this.#logger, runId }
  }

  pictureScale(): number {
    return this.#pictures.scale
  }

  async beforeAction(signal: AbortSignal): Promise<void> {
    this.#pictures.drop()
    await this.#gate.cleared()
    if (signal.aborted) throw new AbortError()
    this.#settled.actionStarting(await this.activePage())
  }

  afterAction(): void {
    this.#gate.acted()
    this.#settled.actionEnded()
  }

  async finish(signal: AbortSignal): Promise<FinishReport> {
    return awaitLastEffects([...this.#activity.values()], this.#gate.lastActionAt(), signal)
  }

  storageState() {
    // IndexedDB too: sites keep logins there (Firebase auth, for one), and a profile must carry them.
    return this.#context.storageState({ indexedDB: true })
  }

  tools(): AnyTool[] {
    this.#tools ??= browserTools(this)
    return this.#tools
  }

  failure(): BrowserFailure | undefined {
    return this.#health.failure()
  }

  close(): Promise<void> {
    this.#health.closing()
    this.#closed.abort()
    this.#closing ??= (async () => {
      await this.#closeContext()
      await this.#guard?.close()
      await this.#extra.onClose?.()
      // Recorded but never collected (a session closed by its pool, say): its files go with it.
      if (!this.#extra.recorder?.collected) await this.#extra.recorder?.dispose()
    })()
    return this.#closing
  }

  /** Closes the context alone (the guard and the browser stay up): what finishes a recorded video and HAR. */
  async #closeContext(): Promise<void> {
    this.#health.closing()
    this.#closed.abort()
    try {
      await withDeadline(this.#context.close(), 10_000, new AbortController().signal, 'context close')
    } catch (error) {
      this.#logger.warn({ err: error, runId: this.settings.runId }, 'closing the browser context failed')
    }
  }

  async activePage(): Promise<Page> {
    return (await this.tabs.active()).page
  }

  fieldType(ref: string): string | undefined {
    return this.#registry.get(ref)?.inputType
  }

  async resolve(ref: string, signal: AbortSignal): Promise<ResolvedElement | string> {
    return resolveRef(await this.activePage(), this.#registry, ref, signal)
  }

  capture(page: Page, wholePage: boolean, signal: AbortSignal): Promise<CapturedPage> {
    return capturePage(page, this.#registry, { wholePage }, signal)
  }

  settle(page: Page, signal: AbortSignal): Promise<boolean> {
    return this.#settled.settle(page, signal)
  }
}
