import { describe, expect, test } from 'vitest'
import { Driver, parseView, servedFixtures } from '../helpers/harness.ts'

const fixtures = servedFixtures()

async function open(page: string): Promise<Driver> {
  const driver = await Driver.open(fixtures.pool, { startUrl: `${fixtures.url}/${page}` })
  await driver.observe()
  return driver
}

/** The refs of the `role "name"` elements that follow each line containing `text`, in view order. */
function refsAfter(view: string, text: string, role: string, name: string): string[] {
  const lines = view.split('\n')
  const found: string[] = []
  lines.forEach((line, index) => {
    if (!line.includes(text) || line.includes('[ref=')) return
    const next = parseView(lines.slice(index + 1).join('\n')).find(
      (candidate) => candidate.role === role && candidate.name === name,
    )
    if (next) found.push(next.ref)
  })
  return found
}

async function said(driver: Driver): Promise<string> {
  const result = await driver.act('execute_javascript', {
    script: "document.getElementById('said').textContent",
  })
  return JSON.parse(result.text.replace(/^Result: /, '')) as string
}

describe('refs bound to identity', () => {
  test('a row re-rendered as new nodes keeps its ref by its context; a stale ref refuses rather than hit another row', async () => {
    const driver = await open('rows.html')
    const [row3] = refsAfter(driver.view, 'Row 3', 'button', 'Delete')
    const [row4] = refsAfter(driver.view, 'Row 4', 'button', 'Delete')
    const drafts = refsAfter(driver.view, 'Draft', 'button', 'Delete')
    expect(row3).toBeDefined()
    expect(drafts).toHaveLength(2)
    expect(new Set([row3, row4, ...drafts]).size).toBe(4)

    // A row inserted above re-renders every row; the model acts on the view it had.
    expect((await driver.act('click', { ref: driver.ref('button', 'Insert row at top') })).ok).toBe(true)
    const followed = await driver.act('click', { ref: row3! })
    expect(followed).toEqual({ ok: true, text: "Clicked button 'Delete'." })
    expect(await said(driver)).toBe('deleted Row 3 #3')

    // Row 3 is gone: its ref must not slide onto Row 4's Delete.
    const stale = await driver.act('click', { ref: row3! })
    expect(stale.ok).toBe(false)
    expect(stale.text).toMatch(new RegExp(`^Element ${row3} changed since the page view you acted on`))
    expect(await said(driver)).toBe('deleted Row 3 #3')

    await driver.observe()
    expect(refsAfter(driver.view, 'Row 4', 'button', 'Delete')).toEqual([row4])

    // Two identical rows re-rendered as new nodes cannot be told apart: their old refs refuse.
    expect((await driver.act('click', { ref: driver.ref('button', 'Remove top row') })).ok).toBe(true)
    const draft = await driver.act('click', { ref: drafts[1]! })
    expect(draft.ok).toBe(false)
    expect(draft.text).toContain('changed since the page view you acted on')
    expect(await said(driver)).toBe('deleted Row 3 #3')
    await driver.observe()
    const newDrafts = refsAfter(driver.view, 'Draft', 'button', 'Delete')
    expect(newDrafts).toHaveLength(2)
    for (const ref of newDrafts) expect(drafts).not.toContain(ref)
    await driver.close()
  })

  test('in a windowed feed, a post that left the DOM takes its ref with it and gets it back when it returns', async () => {
    const driver = await open('feed.html')
    const [like3] = refsAfter(driver.view, 'Post 3', 'button', 'Like')
    const likes = parseView(driver.view).filter((line) => line.name === 'Like')
    expect(like3).toBeDefined()
    expect(new Set(likes.map((line) => line.ref)).size).toBe(likes.length)

    expect((await driver.act('scroll', { direction: 'down', pages: 5 })).ok).toBe(true)
    await driver.observe()
    const later = parseView(driver.view).filter((line) => line.name === 'Like')
    expect(later.length).toBeGreaterThan(0)
    for (const line of later) expect(likes.map((like) => like.ref)).not.toContain(line.ref)
    const gone = await driver.act('click', { ref: like3! })
    expect(gone.ok).toBe(false)
    expect(await said(driver)).toBe('')

    expect((await driver.act('scroll', { direction: 'up', pages: 10 })).ok).toBe(true)
    await driver.observe()
    expect(refsAfter(driver.view, 'Post 3', 'button', 'Like')).toEqual([like3])
    expect((await driver.act('click', { ref: like3! })).ok).toBe(true)
    expect(await said(driver)).toBe('liked Post 3')
    await driver.close()
  })

  test('an element that keeps its DOM node keeps its ref through a label change, a hover and a scroll', async () => {
    const driver = await open('relabel.html')
    const follow = driver.ref('button', 'Follow')
    const play = driver.ref('button', 'Play')
    expect((await driver.act('click', { ref: follow })).ok).toBe(true)
    await driver.observe()
    expect(driver.ref('button', 'Following')).toBe(follow)
    expect((await driver.act('hover', { ref: play })).ok).toBe(true)
    await driver.observe()
    expect(driver.ref('button', 'Play (space)')).toBe(play)

    expect((await driver.act('scroll', { direction: 'down', pages: 3 })).ok).toBe(true)
    await driver.observe()
    expect(driver.view).not.toContain('Following')
    expect((await driver.act('scroll', { direction: 'up', pages: 3 })).ok).toBe(true)
    await driver.observe()
    expect(driver.ref('button', 'Following')).toBe(follow)
    // A new element with the old label is another element: it gets another ref.
    await driver.act('execute_javascript', {
      script:
        "document.body.prepend(Object.assign(document.createElement('button'), { textContent: 'Follow' }))",
    })
    await driver.observe()
    expect(driver.ref('button', 'Follow')).not.toBe(follow)
    expect(driver.ref('button', 'Following')).toBe(follow)
    await driver.close()
  })

  test("a hostile page cannot hand another element a ref's identity", async () => {
    const driver = await open('relabel.html')
    const follow = driver.ref('button', 'Follow')
    // The page looks among its own globals for the table of element identities
    // and gives a new button the identity of "Follow".
    const found = await driver.act('execute_javascript', {
      script: `(() => {
        const follow = document.getElementById('follow')
        const trap = Object.assign(document.createElement('button'), { textContent: 'Delete account' })
        document.body.prepend(trap)
        let tables = 0
        for (const name of Object.getOwnPropertyNames(window)) {
          let value
          try { value = window[name] } catch { continue }
          if (value && typeof value === 'object' && value.ids instanceof WeakMap) {
            value.ids.set(trap, value.ids.get(follow))
            tables++
          }
        }
        return tables
      })()`,
    })
    expect(found.text).toBe('Result: 0')
    await driver.observe()
    expect(driver.ref('button', 'Follow')).toBe(follow)
    expect(driver.ref('button', 'Delete account')).not.toBe(follow)
    await driver.close()
  })
  test('a page that moves the mark of a clickable span onto its trash icon between the view and the click cannot redirect the click', async () => {
    const driver = await open('clickables.html')
    const terms = driver.ref('generic', 'terms')
    // The span has no snapshot node of its own: the page scan marked it with an attribute, which the page moves.
    const moved = await driver.act('execute_javascript', {
      script: `(() => {
        const span = document.querySelector('span.more')
        // The mark's name is random: the page finds it as the attribute its own markup did not have.
        const mark = [...span.attributes].find((attribute) => !['class', 'style', 'onclick'].includes(attribute.name))
        span.removeAttribute(mark.name)
        document.querySelector('.icon-trash').setAttribute(mark.name, mark.value)
        return mark !== undefined
      })()`,
    })
    expect(moved.text).toBe('Result: true')
    const clicked = await driver.act('click', { ref: terms })
    // The span the scan remembers for the ref is clicked; never the icon that now carries the mark.
    expect(await said(driver), clicked.text).toBe('terms')
    expect(clicked).toEqual({ ok: true, text: "Clicked generic 'terms'." })
    await driver.close()
  })
  test('a page that keeps moving the mark as soon as it is set gets a refusal, never a click on the other element', async () => {
    const driver = await open('clickables.html')
    const terms = driver.ref('generic', 'terms')
    await driver.act('execute_javascript', {
      script: `(() => {
        const span = document.querySelector('span.more')
        const trash = document.querySelector('.icon-trash')
        const move = () => {
          const mark = span.getAttribute('data-sextant-ref')
          if (mark === null) return
          span.removeAttribute('data-sextant-ref')
          trash.setAttribute('data-sextant-ref', mark)
        }
        new MutationObserver(move).observe(span, { attributes: true, attributeFilter: ['data-sextant-ref'] })
        move()
        return true
      })()`,
    })
    const clicked = await driver.act('click', { ref: terms })
    expect(await said(driver), clicked.text).not.toBe('trash')
    if (clicked.ok) expect(await said(driver)).toBe('terms')
    else expect(clicked.text).toMatch(/^Element \w+ (changed since|is no longer)/)
    await driver.close()
  })
})
