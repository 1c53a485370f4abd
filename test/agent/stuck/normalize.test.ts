import { describe, expect, test } from 'vitest'
import { actionKey, normalizeUrl } from '../../../src/agent/stuck/normalize.ts'
import { defaultStuckOptions, pageViewShowsLoading } from '../../../src/agent/stuck/options.ts'

const key = (tool: string, input: unknown) => actionKey({ tool, input }, defaultStuckOptions)
const url = (text: string) => normalizeUrl(text, defaultStuckOptions)

describe('normalizeUrl', () => {
  test('ignores case, trailing slashes, parameter order, default ports, tracking parameters and empty fragments', () => {
    const canonical = 'https://shop.test/search?q=lamp&sort=price'
    expect(url('HTTPS://Shop.Test:443/Search/?sort=price&q=Lamp#')).toBe(canonical)
    expect(url('https://shop.test/search?q=lamp&utm_source=news&sort=price&fbclid=x')).toBe(canonical)
    expect(url('  https://shop.test/search?sort=price&q=lamp&empty=  ')).toBe(canonical)
  })

  test('keeps pagination values, paths and meaningful fragments apart', () => {
    expect(url('https://shop.test/search?q=lamp&page=2')).not.toBe(
      url('https://shop.test/search?q=lamp&page=3'),
    )
    expect(url('https://shop.test/search?q=lamp&page=')).toBe('https://shop.test/search?page=&q=lamp')
    expect(url('https://app.test/#/inbox')).not.toBe(url('https://app.test/#/sent'))
    expect(url('https://shop.test/a')).not.toBe(url('https://shop.test/b'))
  })

  test('leaves text that is not an absolute URL readable', () => {
    expect(url(' /Search/ ')).toBe('/search')
    expect(url('not a url')).toBe('not a url')
  })
})

describe('actionKey', () => {
  test('inputs differing only in unimportant ways are the same action', () => {
    expect(key('type', { ref: 's1', text: '  Desk   Lamp ' })).toBe(
      key('type', { text: 'desk lamp', ref: 's1' }),
    )
    expect(key('navigate', { url: 'https://a.test/x/?b=2&a=1' })).toBe(
      key('navigate', { url: 'https://A.test/x?a=1&b=2' }),
    )
    expect(key('click', { ref: 'b1', button: undefined })).toBe(key('click', { ref: 'b1' }))
  })

  test('different tools, elements, texts or pages of results are different actions', () => {
    expect(key('click', { ref: 'b1' })).not.toBe(key('hover', { ref: 'b1' }))
    expect(key('click', { ref: 'b1' })).not.toBe(key('click', { ref: 'b2' }))
    expect(key('type', { ref: 's1', text: 'lamp' })).not.toBe(key('type', { ref: 's1', text: 'desk' }))
    expect(key('navigate', { url: 'https://a.test/?offset=20' })).not.toBe(
      key('navigate', { url: 'https://a.test/?offset=40' }),
    )
    expect(key('load_more', { cursor: 'abc' })).not.toBe(key('load_more', { cursor: 'abd' }))
  })
})

describe('pageViewShowsLoading', () => {
  test('recognizes progress bars, busy regions and loading messages', () => {
    expect(pageViewShowsLoading('- progressbar "Export" [value=40]')).toBe(true)
    expect(pageViewShowsLoading('- region "Results" [busy]')).toBe(true)
    expect(pageViewShowsLoading('- status: Loading results…')).toBe(true)
    expect(pageViewShowsLoading('- heading "Results" [level=1]\n- button "Next" [ref=b1]')).toBe(false)
  })
})
