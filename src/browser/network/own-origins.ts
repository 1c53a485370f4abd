import { networkInterfaces } from 'node:os'

/**
 * The `host:port` origins by which a run's browser could reach the server
 * itself. A listener on a loopback address answers on every loopback name; a
 * listener on 0.0.0.0 or :: answers on every address of the machine too.
 */
export function ownOrigins(host: string, port: number): string[] {
  return ownAddressNames(host).map((name) => `${name}:${port}`)
}

/** The names and literal addresses (IPv6 in brackets) that reach a listener on `host`, without a port. */
export function ownAddressNames(host: string): string[] {
  const names = new Set(['127.0.0.1', 'localhost', '[::1]', '0.0.0.0', '[::]'])
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase()
  names.add(bare.includes(':') ? `[${bare}]` : bare)
  if (bare === '0.0.0.0' || bare === '::') {
    for (const addresses of Object.values(networkInterfaces())) {
      for (const address of addresses ?? []) {
        const literal = address.address.split('%')[0] ?? address.address
        names.add(address.family === 'IPv6' ? `[${literal}]` : literal)
      }
    }
  }
  return [...names]
}
