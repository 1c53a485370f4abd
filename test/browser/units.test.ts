import { describe, expect, test } from 'vitest'
import { parseDate, parseTime, toInputValue } from '../../src/browser/actions/date-input.ts'
import { matchOptions } from '../../src/browser/actions/forms.ts'
import { isExpression } from '../../src/browser/actions/javascript.ts'
import { normalizeKey } from '../../src/browser/actions/keyboard-input.ts'
import {
  isHostAllowed,
  navigationRefusal,
  normalizeDomain,
  normalizeUrl,
} from '../../src/browser/network/navigation-guard.ts'
import { capLines } from '../../src/browser/view/page-view.ts'
import { RefHistory } from '../../src/browser/view/ref-history.ts'
import { baseRef, fnv1a } from '../../src/browser/view/stable-refs.ts'
import type { Line } from '../../src/browser/view/view-render.ts'

describe('stable refs', () => {
  test('FNV-1a matches the reference values', () => {
    expect(fnv1a('')).toBe(0x811c9dc5)
    expect(fnv1a('a')).toBe(0xe40c292c)
    expect(fnv1a('foobar')).toBe(0xbf9cf968)
  })

  test('a ref is the role initial and the hash mod 2^14 in base 36', () => {
    const ref = baseRef('button', 'Save')
    expect(ref).toMatch(/^b[0-9a-z]{1,3}$/)
    expect(Number.parseInt(ref.slice(1), 36)).toBe(fnv1a('button\u0000Save') % 16384)
    expect(baseRef('button', 'Save')).toBe(ref)
    expect(baseRef('link', 'Save')).not.toBe(ref)
  })

  test('a fresh ref is never one handed out before, and a ref follows only the identities of its latest holder', () => {
    const history = new RefHistory()
    history.bind('b1', { key: 'Save', unique: false }, ['d:doc:1'], false)
    const second = history.fresh('b1')
    expect(second).toBe('b1_2')
    history.bind(second, { key: 'Save', unique: false }, ['d:doc:2'], false)
    expect(history.fresh('b1')).toBe('b1_3')
    expect(history.holderOf('d:doc:1')).toBe('b1')
    // b1 passes to another element: the old one's identity no longer leads to it.
    history.bind('b1', { key: 'Save', unique: false }, ['d:doc:9'], false)
    expect(history.holderOf('d:doc:1')).toBeUndefined()
    expect(history.holderOf('d:doc:9')).toBe('b1')
    // The same element seen by another identity (a new aria ref after a rename) keeps both.
    history.bind('b1', { key: 'Save', unique: false }, ['a:doc:e5'], true)
    expect(history.holderOf('d:doc:9')).toBe('b1')
    expect(history.holderOf('a:doc:e5')).toBe('b1')
  })
})

describe('dates and times', () => {
  test.each([
    ['2025-03-15', '2025-03-15'],
    ['03/15/2025', '2025-03-15'],
    ['15/03/2025', '2025-03-15'],
    ['15.03.2025', '2025-03-15'],
    ['March 15, 2025', '2025-03-15'],
    ['Sat, Mar 15th 2025', '2025-03-15'],
    ['15 March 2025', '2025-03-15'],
    ['3/5/25', '2025-03-05'],
  ])('date %s → %s', (text, value) => {
    expect(toInputValue('date', text)).toBe(value)
  })

  test('rejects what is not a date', () => {
    expect(parseDate('02/30/2025')).toBeUndefined()
    expect(parseDate('soon')).toBeUndefined()
    expect(toInputValue('date', '13/13/2025')).toBeUndefined()
  })

  test('times, months, weeks and date-times', () => {
    expect(parseTime('14:30')).toEqual({ hour: 14, minute: 30 })
    expect(toInputValue('time', '2:30 pm')).toBe('14:30')
    expect(toInputValue('time', '12am')).toBe('00:00')
    expect(toInputValue('time', '9:05:07')).toBe('09:05:07')
    expect(toInputValue('time', '25:00')).toBeUndefined()
    expect(toInputValue('datetime-local', '2025-03-15T14:30')).toBe('2025-03-15T14:30')
    expect(toInputValue('datetime-local', '03/15/2025 2:30 PM')).toBe('2025-03-15T14:30')
    expect(toInputValue('datetime-local', '2025-03-15')).toBeUndefined()
    expect(toInputValue('month', 'March 2025')).toBe('2025-03')
    expect(toInputValue('month', '03/2025')).toBe('2025-03')
    expect(toInputValue('week', '2025-01-01')).toBe('2025-W01')
    expect(toInputValue('week', '2024-12-30')).toBe('2025-W01')
    expect(toInputValue('week', '2025W7')).toBe('2025-W07')
  })
})

describe('URLs and domains', () => {
  test('adds a scheme where one is missing', () => {
    expect(normalizeUrl('example.com/a')).toBe('https://example.com/a')
    expect(normalizeUrl('localhost:3000')).toBe('http://localhost:3000')
    expect(normalizeUrl('127.0.0.1:8080/x')).toBe('http://127.0.0.1:8080/x')
    expect(normalizeUrl('https://x.org')).toBe('https://x.org')
    expect(normalizeUrl('file:///etc/passwd')).toBe('file:///etc/passwd')
  })

  test('a host allows itself on every port; *.host adds its subdomains; host:port one port', () => {
    const allowed = [
      'Example.com.',
      'https://Docs.Other.org/path',
      '*.wild.net',
      '127.0.0.1:8080',
      '[::1]:9000',
    ]
    expect(normalizeDomain('*.wild.net')).toBe('wild.net')
    expect(normalizeDomain('[::1]:9000')).toBe('[::1]:9000')
    expect(isHostAllowed(new URL('https://example.com/'), allowed)).toBe(true)
    expect(isHostAllowed(new URL('https://example.com:8443/'), allowed)).toBe(true)
    expect(isHostAllowed(new URL('https://EXAMPLE.com./'), allowed)).toBe(true)
    expect(isHostAllowed(new URL('https://a.b.example.com/'), allowed)).toBe(false)
    expect(isHostAllowed(new URL('https://notexample.com/'), allowed)).toBe(false)
    expect(isHostAllowed(new URL('https://example.com.evil.io/'), allowed)).toBe(false)
    expect(isHostAllowed(new URL('https://docs.other.org/'), allowed)).toBe(true)
    expect(isHostAllowed(new URL('https://other.org/'), allowed)).toBe(false)
    expect(isHostAllowed(new URL('https://x.y.wild.net/'), allowed)).toBe(true)
    expect(isHostAllowed(new URL('https://wild.net/'), allowed)).toBe(true)
    expect(isHostAllowed(new URL('https://notwild.net/'), allowed)).toBe(false)
    expect(isHostAllowed(new URL('http://127.0.0.1:8080/'), allowed)).toBe(true)
    expect(isHostAllowed(new URL('http://127.0.0.1:9090/'), allowed)).toBe(false)
    expect(isHostAllowed(new URL('http://127.0.0.1/'), allowed)).toBe(false)
    expect(isHostAllowed(new URL('http://[::1]:9000/'), allowed)).toBe(true)
    expect(isHostAllowed(new URL('http://[::1]:9001/'), allowed)).toBe(false)
  })

  test('international names match in either spelling', () => {
    expect(isHostAllowed(new URL('https://xn--bcher-kva.example/'), ['bücher.example'])).toBe(true)
    expect(isHostAllowed(new URL('https://bücher.example/'), ['xn--bcher-kva.example'])).toBe(true)
    expect(isHostAllowed(new URL('https://a.bücher.example/'), ['*.BÜCHER.example'])).toBe(true)
  })

  test('refuses unsafe schemes unless enabled', () => {
    expect(navigationRefusal('file:///etc/passwd', {})).toBe(
      'Navigation to file:///etc/passwd refused: file: URLs are not allowed in this run.',
    )
    expect(navigationRefusal('file:///etc/passwd', { allowUnsafeSchemes: true })).toBeUndefined()
    expect(navigationRefusal('about:blank', {})).toBeUndefined()
    expect(navigationRefusal('https://a.com', { allowedDomains: ['b.com'] })).toBe(
      'Navigation to https://a.com blocked: domain not in allowedDomains.',
    )
  })
})

describe('the token cap', () => {
  const line = (body: string, extra: Partial<Line> = {}): Line => ({
    depth: 0,
    body,
    kind: 'element',
    keep: false,
    ...extra,
  })

  test('drops text first, then the lowest lines, and kept lines last', () => {
    const lines = [
      line('button "A" [ref=b1]'),
      line(`text: ${'x'.repeat(200)}`, { kind: 'text' }),
      line('button "B" [ref=b2]'),
      line('option "Kept" [ref=o1]', { keep: true }),
      line('button "C" [ref=b3]'),
    ]
    const all = capLines(lines, 10_000)
    expect(all.cut).toBe(0)
    const capped = capLines(lines, 70)
    expect(capped.lines.map((kept) => kept.body)).toEqual([
      'button "A" [ref=b1]',
      'button "B" [ref=b2]',
      'option "Kept" [ref=o1]',
    ])
    expect(capped.cut).toBe(2)
    const tiny = capLines(lines, 25)
    expect(tiny.lines.map((kept) => kept.body)).toEqual(['option "Kept" [ref=o1]'])
  })
})

describe('input helpers', () => {
  test('key names as models write them', () => {
    expect(normalizeKey('enter')).toBe('Enter')
    expect(normalizeKey('ctrl+a')).toBe('Control+a')
    expect(normalizeKey('Cmd+Shift+K')).toBe('Meta+Shift+K')
    expect(normalizeKey('f5')).toBe('F5')
    expect(normalizeKey('ArrowDown')).toBe('ArrowDown')
  })

  test('options by value, label, case and part of the label', () => {
    const options = [
      { label: 'France', value: 'fr' },
      { label: 'United Kingdom', value: 'uk' },
    ]
    expect(matchOptions(['fr', 'united kingdom'], options)).toEqual({ values: ['fr', 'uk'], missing: [] })
    expect(matchOptions(['Kingdom', 'Peru'], options)).toEqual({ values: ['uk'], missing: ['Peru'] })
  })

  test('scripts: an expression or a body', () => {
    expect(isExpression('document.title')).toBe(true)
    expect(isExpression('await fetch("/x").then((r) => r.status)')).toBe(true)
    expect(isExpression('const a = 1\nreturn a')).toBe(false)
  })
})
