import { describe, expect, test } from 'vitest'
import {
  type AddressClass,
  addressKey,
  canonicalAddress,
  classifyAddress,
  isMetadataHost,
} from '../../src/util/addresses.ts'
import { anyRuleMatches, parseHostRules } from '../../src/util/host-rules.ts'

/** Every spelling an attacker (or a URL parser) writes, with the address it reaches and what that is. */
const spellings: ReadonlyArray<readonly [string, string, AddressClass]> = [
  // Cloud metadata, IPv4 and its IPv6 embeddings.
  ['169.254.169.254', '169.254.169.254', 'metadata'],
  ['[169.254.169.254]', '169.254.169.254', 'metadata'],
  ['169.254.169.254.', '169.254.169.254', 'metadata'],
  ['2852039166', '169.254.169.254', 'metadata'],
  ['0xa9fea9fe', '169.254.169.254', 'metadata'],
  ['0251.0376.0251.0376', '169.254.169.254', 'metadata'],
  ['169.254.43518', '169.254.169.254', 'metadata'],
  ['::ffff:169.254.169.254', '169.254.169.254', 'metadata'],
  ['[::ffff:a9fe:a9fe]', '169.254.169.254', 'metadata'],
  ['0:0:0:0:0:ffff:a9fe:a9fe', '169.254.169.254', 'metadata'],
  ['::a9fe:a9fe', '169.254.169.254', 'metadata'],
  ['::169.254.169.254', '169.254.169.254', 'metadata'],
  ['64:ff9b::a9fe:a9fe', '169.254.169.254', 'metadata'],
  ['64:ff9b::169.254.169.254', '169.254.169.254', 'metadata'],
  ['::ffff:0:a9fe:a9fe', '169.254.169.254', 'metadata'],
  ['::ffff:0:169.254.169.254', '169.254.169.254', 'metadata'],
  ['FD00:EC2::254', 'fd00:ec2::254', 'metadata'],
  ['[fd00:ec2:0:0:0:0:0:254]', 'fd00:ec2::254', 'metadata'],
  ['169.254.170.2', '169.254.170.2', 'metadata'],
  ['::ffff:a9fe:aa02', '169.254.170.2', 'metadata'],
  ['100.100.100.200', '100.100.100.200', 'metadata'],
  // Loopback.
  ['127.0.0.1', '127.0.0.1', 'loopback'],
  ['2130706433', '127.0.0.1', 'loopback'],
  ['0x7f.1', '127.0.0.1', 'loopback'],
  ['0x7f000001', '127.0.0.1', 'loopback'],
  ['0177.0.0.1', '127.0.0.1', 'loopback'],
  ['127.1', '127.0.0.1', 'loopback'],
  ['127.0.0.1.', '127.0.0.1', 'loopback'],
  ['127.9.9.9', '127.9.9.9', 'loopback'],
  ['::1', '::1', 'loopback'],
  ['[0:0:0:0:0:0:0:1]', '::1', 'loopback'],
  ['::ffff:127.0.0.1', '127.0.0.1', 'loopback'],
  ['[::ffff:7f00:1]', '127.0.0.1', 'loopback'],
  ['::7f00:1', '127.0.0.1', 'loopback'],
  ['64:ff9b::7f00:1', '127.0.0.1', 'loopback'],
  ['::ffff:0:7f00:1', '127.0.0.1', 'loopback'],
  // Unspecified: reaches this machine when connected to.
  ['0.0.0.0', '0.0.0.0', 'unspecified'],
  ['0', '0.0.0.0', 'unspecified'],
  ['0x0', '0.0.0.0', 'unspecified'],
  ['::', '::', 'unspecified'],
  ['[::]', '::', 'unspecified'],
  ['::ffff:0.0.0.0', '0.0.0.0', 'unspecified'],
  // Link-local, with and without a zone id.
  ['169.254.1.1', '169.254.1.1', 'link-local'],
  ['fe80::1', 'fe80::1', 'link-local'],
  ['fe80::1%eth0', 'fe80::1', 'link-local'],
  ['[fe80::1%25eth0]', 'fe80::1', 'link-local'],
  // Private ranges in every spelling.
  ['10.0.0.1', '10.0.0.1', 'private'],
  ['012.0.0.1', '10.0.0.1', 'private'],
  ['167772161', '10.0.0.1', 'private'],
  ['::ffff:a00:1', '10.0.0.1', 'private'],
  ['64:ff9b::a00:1', '10.0.0.1', 'private'],
  ['192.168.1.1', '192.168.1.1', 'private'],
  ['::ffff:c0a8:101', '192.168.1.1', 'private'],
  ['172.16.0.1', '172.16.0.1', 'private'],
  ['100.64.0.1', '100.64.0.1', 'private'],
  ['fd12::1', 'fd12::1', 'private'],
  ['64:ff9b:1::a00:1', '64:ff9b:1::a00:1', 'private'],
  // Multicast and reserved.
  ['224.0.0.1', '224.0.0.1', 'multicast'],
  ['ff02::1', 'ff02::1', 'multicast'],
  ['240.0.0.1', '240.0.0.1', 'reserved'],
  // Public, embedded or not.
  ['93.184.215.14', '93.184.215.14', 'public'],
  ['::ffff:5db8:d70e', '93.184.215.14', 'public'],
  ['64:ff9b::5db8:d70e', '93.184.215.14', 'public'],
  ['2606:4700::1111', '2606:4700::1111', 'public'],
  ['8.8.8.8.', '8.8.8.8', 'public'],
]

describe('the address classifier', () => {
  test.each(spellings)('%s is %s, %s', (spelling, canonical, kind) => {
    expect(canonicalAddress(spelling)).toBe(canonical)
    expect(classifyAddress(spelling)).toBe(kind)
  })

  test('names and things that only look like addresses are not addresses', () => {
    for (const text of [
      'example.com',
      'localhost',
      '',
      'a@127.0.0.1',
      'x/127.1',
      '1.2.3.4:80',
      '::g',
      '1.2.3.4.5',
    ])
      expect(canonicalAddress(text), text).toBeUndefined()
  })

  test('cloud metadata names are metadata in any case and with a trailing dot', () => {
    for (const host of ['metadata.google.internal', 'METADATA.google.internal.', 'metadata.goog', 'metadata'])
      expect(isMetadataHost(host), host).toBe(true)
    expect(isMetadataHost('[::ffff:a9fe:a9fe]')).toBe(true)
    expect(isMetadataHost('metadata.example.com')).toBe(false)
  })

  test('every spelling of loopback and the unspecified address is one key, as the server is denied by', () => {
    const keys = new Set(
      spellings
        .filter(([, , kind]) => kind === 'loopback' || kind === 'unspecified')
        .map(([s]) => addressKey(s)),
    )
    expect([...keys]).toEqual(['loopback'])
    expect(addressKey('[::ffff:a00:1]')).toBe('10.0.0.1')
  })

  test('a host rule matches its address in any spelling (allowedDomains, denied origins)', () => {
    const rules = parseHostRules(['10.0.0.1:8080', '[::ffff:5db8:d70e]'])
    expect(anyRuleMatches(rules, '::ffff:a00:1', 8080)).toBe(true)
    expect(anyRuleMatches(rules, '64:ff9b::a00:1', 8080)).toBe(true)
    expect(anyRuleMatches(rules, '10.0.0.1', 8081)).toBe(false)
    expect(anyRuleMatches(rules, '93.184.215.14', 443)).toBe(true)
  })
})
