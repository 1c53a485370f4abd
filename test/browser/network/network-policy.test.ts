import { describe, expect, test } from 'vitest'
import { guardProxyReachable } from '../../../src/browser/launch/launcher.ts'
import { NetworkPolicy } from '../../../src/browser/network/network-policy.ts'
import { refusedScheme } from '../../../src/browser/network/scheme-guard.ts'
import { addressKey, isPrivateAddress } from '../../../src/util/addresses.ts'
import { parseHostRule } from '../../../src/util/host-rules.ts'

/** The rules of the network boundary, without a browser (the browser tests show them enforced). */

describe('host rules', () => {
  test('parse host, port, wildcard and IPv6 literals; refuse what names no host', () => {
    expect(parseHostRule('*.Example.COM.:8443')).toEqual({ host: 'example.com', port: 8443, wildcard: true })
    expect(parseHostRule('[::1]:9000')).toEqual({ host: '::1', port: 9000, wildcard: false })
    expect(parseHostRule('[::1]')).toEqual({ host: '::1', port: undefined, wildcard: false })
    expect(parseHostRule('https://a.org/path?q')).toEqual({ host: 'a.org', port: undefined, wildcard: false })
    expect(parseHostRule('a.org:99999')).toBeUndefined()
    expect(parseHostRule('')).toBeUndefined()
  })
})

describe('addresses', () => {
  test('private, loopback, link-local and mapped addresses are private; public ones are not', () => {
    for (const address of [
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '127.0.0.2',
      '169.254.1.1',
      '::1',
      'fe80::1',
      'fd12::1',
      '::ffff:10.0.0.1',
      '0.0.0.0',
    ])
      expect(isPrivateAddress(address), address).toBe(true)
    for (const address of ['8.8.8.8', '2606:4700::1111', '172.32.0.1', '::ffff:8.8.8.8'])
      expect(isPrivateAddress(address), address).toBe(false)
  })

  test('every loopback and unspecified address is one key', () => {
    expect(
      new Set(['127.0.0.1', '127.9.9.9', '::1', '0.0.0.0', '::', '::ffff:127.0.0.1'].map(addressKey)),
    ).toEqual(new Set(['loopback']))
  })
})

describe('the policy', () => {
  const resolver = (answers: Record<string, string[]>) => async (host: string) => answers[host] ?? []

  test("denies the server's own origin by any name or address that reaches it, and that port alone", async () => {
    const policy = new NetworkPolicy(
      { deniedOrigins: ['127.0.0.1:8787'] },
      resolver({ 'rebind.example': ['127.0.0.1'], 'public.example': ['93.184.215.14'] }),
    )
    for (const host of [
      '127.0.0.1',
      '127.0.0.2',
      'localhost',
      'api.localhost',
      '0.0.0.0',
      '::1',
      'rebind.example',
    ])
      expect(await policy.resolve(host, 8787), host).toMatchObject({
        refused: expect.stringContaining('own'),
      })
    expect(await policy.resolve('127.0.0.1', 8788)).toEqual({ addresses: ['127.0.0.1'] })
    expect(await policy.resolve('public.example', 8787)).toEqual({ addresses: ['93.184.215.14'] })
  })

  test('refuses metadata addresses by name and by what a name resolves to, in every run', async () => {
    const policy = new NetworkPolicy({}, resolver({ 'meta.example': ['169.254.169.254'] }))
    for (const host of [
      '169.254.169.254',
      'fd00:ec2::254',
      'metadata.google.internal',
      'meta.example',
      '::ffff:169.254.169.254',
    ])
      expect(await policy.resolve(host, 80), host).toMatchObject({
        refused: expect.stringContaining('metadata'),
      })
  })

  test('blockPrivateNetworks judges a name by every address it resolves to', async () => {
    const policy = new NetworkPolicy(
      { blockPrivateNetworks: true },
      resolver({ 'split.example': ['93.184.215.14', '10.0.0.5'], 'public.example': ['93.184.215.14'] }),
    )
    expect(await policy.resolve('split.example', 443)).toMatchObject({
      refused: expect.stringContaining('private'),
    })
    expect(await policy.resolve('public.example', 443)).toEqual({ addresses: ['93.184.215.14'] })
    expect(
      await new NetworkPolicy({}, resolver({ 'split.example': ['10.0.0.5'] })).resolve('split.example', 443),
    ).toEqual({
      addresses: ['10.0.0.5'],
    })
  })

  test('allowedDomains is checked before any lookup', async () => {
    const looked: string[] = []
    const policy = new NetworkPolicy({ allowedDomains: ['*.ok.example'] }, async (host) => {
      looked.push(host)
      return ['93.184.215.14']
    })
    expect(await policy.resolve('evil.example', 443)).toEqual({ refused: 'not in allowedDomains' })
    expect(await policy.resolve('a.ok.example', 443)).toEqual({ addresses: ['93.184.215.14'] })
    expect(looked).toEqual(['a.ok.example'])
  })
})

test('every top-level scheme but http:, https: and about:blank is refused', () => {
  expect(
    [
      'file:///x',
      'data:,x',
      'blob:http://a/b',
      'javascript:1',
      'view-source:http://a',
      'chrome://version',
      'about:config',
      'ftp://x',
    ].map(refusedScheme),
  ).toEqual(['file:', 'data:', 'blob:', 'javascript:', 'view-source:', 'chrome:', 'about:', 'ftp:'])
  expect(['http://a', 'HTTPS://a', 'about:blank'].map(refusedScheme)).toEqual([
    undefined,
    undefined,
    undefined,
  ])
})

test('the guard proxy is used unless the browser is reached on another machine', () => {
  expect(guardProxyReachable({})).toBe(true)
  expect(guardProxyReachable({ cdpUrl: 'http://127.0.0.1:9222' })).toBe(true)
  expect(guardProxyReachable({ wsEndpoint: 'ws://[::1]:3000/x' })).toBe(true)
  expect(guardProxyReachable({ wsEndpoint: 'ws://browsers.internal:3000/x' })).toBe(false)
  expect(guardProxyReachable({ cdpUrl: 'http://10.0.0.7:9222' })).toBe(false)
})
