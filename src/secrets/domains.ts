/**
 * Where a scoped secret may be typed: an entry is `host` (subdomains
 * included), `host:port` (that port alone), or `*.host`; a scheme or path in
 * the entry is ignored. The same entry syntax as `allowedDomains`; kept here,
 * at the bottom layer, because secrets are revealed by tools that must not
 * depend on the network guard's module.
 */
export function hostMatchesDomains(pageUrl: string, domains: string[]): boolean {
  let url: URL
  try {
    url = new URL(pageUrl)
  } catch {
    return false
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '')
  const port = url.port || (url.protocol === 'https:' ? '443' : '80')
  return domains.some((entry) => {
    const { host: allowed, port: allowedPort } = parseEntry(entry)
    if (!allowed) return false
    if (allowedPort !== undefined && allowedPort !== port) return false
    return host === allowed || host.endsWith(`.${allowed}`)
  })
}

function parseEntry(entry: string): { host: string; port?: string } {
  let text = entry.trim().toLowerCase()
  text = text.replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
  text = (text.split('/')[0] ?? '').replace(/^\*?\./, '')
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text)
  if (bracketed) return { host: bracketed[1] ?? '', ...(bracketed[2] ? { port: bracketed[2] } : {}) }
  const withPort = /^([^:]+):(\d+)$/.exec(text)
  if (withPort) return { host: withPort[1] ?? '', port: withPort[2] ?? '' }
  return { host: text }
}
