import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { PageServer } from '../../support/page-server.ts'
import { sortablePaths, startSortablePages } from '../../support/pages/sortable-pages.ts'
import { Driver, servedFixtures } from '../helpers/harness.ts'

// A drag onto an item of a sortable list leaves the dragged item where that item was, in both directions,
// on real libraries' lists: jQuery UI's sortable (a vertical list of uneven items, a horizontal one, a floated
// grid), SortableJS (animated, in a column and in a row) and dnd-kit (React; a column, a row, a grid). The
// problems are random but seeded: the same drags every run. What decides is the page's own order, and the action's result says the same place.

const fixtures = servedFixtures()
let pages: PageServer

beforeAll(async () => {
  pages = await startSortablePages()
}, 60_000)
afterAll(async () => {
  await pages?.close()
})

/** A small seeded generator (mulberry32): the same drags on every run. */
function seeded(seed: number): () => number {
  let state = seed
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * The ref of the item the view names `name`: a list item whose text starts with it, or (dnd-kit's items,
 * which its attributes make buttons) a button of that name.
 */
function itemRef(driver: Driver, name: string): string {
  const line = driver
    .refs()
    .find(
      (candidate) =>
        (candidate.role === 'listitem' && new RegExp(`: ${name}(?!\\d)`).test(candidate.line)) ||
        (candidate.role === 'button' && candidate.name === name),
    )
  if (!line) throw new Error(`No list item ${name} in:\n${driver.view}`)
  return line.ref
}

async function orderOf(driver: Driver): Promise<string[]> {
  const result = await driver.act('execute_javascript', {
    script: "return document.getElementById('order').textContent",
  })
  if (!result.text.startsWith('Result: ')) throw new Error(result.text)
  const text = JSON.parse(result.text.replace(/^Result: /, '')) as string
  return text.replace(/^Order: /, '').split(', ')
}

/** Drags random items onto random others; the indices where each landed against where it was asked to. */
async function randomDrags(path: string, count: number, seed: number): Promise<string[]> {
  const driver = await Driver.open(fixtures.pool, { startUrl: `${pages.url}${path}` })
  const missed: string[] = []
  try {
    // The first view waits for the page to load.
    await driver.observe()
    const random = seeded(seed)
    // Each drag starts from the order the last one left (read once, after it).
    let order = await orderOf(driver)
    for (let drag = 0; drag < count; drag++) {
      const from = Math.floor(random() * order.length)
      let to = Math.floor(random() * (order.length - 1))
      if (to >= from) to++
      const [source, target] = [order[from] ?? '', order[to] ?? '']
      await driver.observe()
      const result = await driver.act('drag', { ref: itemRef(driver, source), to: itemRef(driver, target) })
      const after = await orderOf(driver)
      const landed = after.indexOf(source)
      const said = `: it is now ${ordinalOf(to + 1)} of ${order.length}.`
      if (landed !== to || !result.text.endsWith(said))
        missed.push(
          `${source} (${from + 1}) onto ${target} (${to + 1}): landed ${landed + 1}; ${result.text}`,
        )
      order = after
    }
  } finally {
    await driver.close()
  }
  return missed
}

function ordinalOf(place: number): string {
  const teen = place % 100 >= 11 && place % 100 <= 13
  return `${place}${teen ? 'th' : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[place % 10] ?? 'th')}`
}

describe('a drag onto an item of a sortable list lands where the item was', () => {
  test('jQuery UI sortable, a vertical list of uneven items: 50 random drags', async () => {
    expect(await randomDrags(sortablePaths.jqueryList, 50, 44)).toEqual([])
  }, 240_000)

  test('jQuery UI sortable, a floated grid of three rows: 50 random drags', async () => {
    expect(await randomDrags(sortablePaths.jqueryGrid, 50, 45)).toEqual([])
  }, 240_000)

  test('jQuery UI sortable, a horizontal list: 12 random drags', async () => {
    expect(await randomDrags(sortablePaths.jqueryRow, 12, 46)).toEqual([])
  }, 120_000)

  test('SortableJS, animated, in a column and in a row: 12 random drags each', async () => {
    expect(await randomDrags(sortablePaths.sortableList, 12, 47)).toEqual([])
    expect(await randomDrags(sortablePaths.sortableRow, 12, 48)).toEqual([])
  }, 240_000)

  // dnd-kit's closest-centre collision already put the item in the target's place; the result now says it.
  test('dnd-kit, in a column, a row and a wrapping grid: 10 random drags each', async () => {
    expect(await randomDrags(sortablePaths.dndKitList, 10, 49)).toEqual([])
    expect(await randomDrags(sortablePaths.dndKitRow, 10, 50)).toEqual([])
    expect(await randomDrags(sortablePaths.dndKitGrid, 10, 51)).toEqual([])
  }, 240_000)
})
