import type { Page } from 'playwright-core'
import { isAbortError } from '../../tool.ts'
import { withDeadline } from '../../util/deadline.ts'
import { thrownByPage } from './explain-failure.ts'

/**
 * For `find`: text a virtualized list has not rendered yet (only the rows in
 * sight are in the DOM) is found by scrolling each scrolling container of the
 * page a screen at a time, letting the page render between steps, until the
 * text appears; then its element is scrolled to the middle of its list. A
 * list that never shows it is put back where it was. Bounded in steps and time.
 */

interface RevealArgs {
  text: string
  maxSteps: number
  maxMs: number
}

async function revealInPage({ text, maxSteps, maxMs }: RevealArgs): Promise<boolean> {
  const needle = text.replace(/\s+/g, ' ').trim().toLowerCase()
  const holds = (element: Element) =>
    (element.textContent ?? '').replace(/\s+/g, ' ').toLowerCase().includes(needle)
  const page = document.scrollingElement ?? document.documentElement
  // The containers that scroll their own content and have room left to scroll, the tallest content first.
  const scrollers = Array.from(document.querySelectorAll('body *'))
    .filter(
      (element) =>
        element !== page &&
        element.scrollHeight > element.clientHeight + 1 &&
        /^(auto|scroll|overlay)$/.test(getComputedStyle(element).overflowY),
    )
    .sort((a, b) => b.scrollHeight - a.scrollHeight)
    .slice(0, 5)
  const started = performance.now()
  // A message posted after the page's own (a framework's render scheduled by the scroll) arrives after it;
  // a page that changed nothing by then is given a frame.
  const tick = () =>
    new Promise<void>((resolve) => {
      const channel = new MessageChannel()
      channel.port1.onmessage = () => resolve()
      channel.port2.postMessage(null)
    })
  const rendered = async (within: Element) => {
    let changed = 0
    const changes = new MutationObserver((records) => {
      changed += records.length
    })
    changes.observe(within, { childList: true, subtree: true, characterData: true })
    await tick()
    changed += changes.takeRecords().length
    if (changed === 0) {
      await new Promise((resolve) => requestAnimationFrame(resolve))
      await tick()
    }
    changes.disconnect()
    return changed + changes.takeRecords().length > 0
  }
  let steps = 0
  for (const scroller of scrollers) {
    if (holds(scroller)) continue
    const from = scroller.scrollTop
    const screen = Math.max(20, Math.round(scroller.clientHeight * 0.9))
    // The next step starts where the rendered content ends (a list renders a few rows past its edge).
    const nextStep = (): number => {
      const top = scroller.getBoundingClientRect().top
      let reach = 0
      for (const element of Array.from(scroller.querySelectorAll('*')).slice(0, 300))
        reach = Math.max(reach, element.getBoundingClientRect().bottom - top)
      return Math.max(screen, Math.min(Math.round(reach) - 4, scroller.clientHeight * 3))
    }
    let virtual: boolean | undefined
    const tryFrom = async (start: number, end: number): Promise<boolean> => {
      if (Math.abs(scroller.scrollTop - start) > 1) {
        scroller.scrollTop = start
        scroller.dispatchEvent(new Event('scroll'))
        await rendered(scroller)
        if (holds(scroller)) return true
      }
      for (let at = start; at <= end && steps < maxSteps && performance.now() - started < maxMs; ) {
        at += virtual === false ? screen : nextStep()
        scroller.scrollTop = at
        scroller.dispatchEvent(new Event('scroll'))
        steps++
        const changed = await rendered(scroller)
        // A list whose DOM stays the same as it scrolls holds all its rows already: no use scrolling it.
        virtual ??= changed
        if (!virtual) return false
        if (holds(scroller)) return true
        if (scroller.scrollTop < at - 1) break
      }
      return false
    }
    const bottom = scroller.scrollHeight - scroller.clientHeight
    if ((await tryFrom(from, bottom)) || (await tryFrom(0, from))) {
      // The innermost element holding the text goes to the middle of its list.
      let found: Element = scroller
      for (let deeper = true; deeper; ) {
        deeper = false
        for (const child of Array.from(found.children)) {
          if (holds(child)) {
            found = child
            deeper = true
            break
          }
        }
      }
      found.scrollIntoView({ block: 'center', inline: 'nearest', behavior: 'instant' })
      await rendered(scroller)
      return true
    }
    scroller.scrollTop = from
  }
  return false
}

/** Whether scrolling a list of the page brought `text` into its DOM; false when none did, or the page broke it. */
export async function revealInLists(page: Page, text: string, signal: AbortSignal): Promise<boolean> {
  const args: RevealArgs = { text, maxSteps: 1000, maxMs: 8000 }
  try {
    return await withDeadline(
      page.mainFrame().evaluate(revealInPage, args),
      args.maxMs + 2000,
      signal,
      'find in lists',
    )
  } catch (error) {
    if (isAbortError(error) || signal.aborted || !thrownByPage(error)) throw error
    return false
  }
}
