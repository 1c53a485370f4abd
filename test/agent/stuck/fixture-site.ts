import { type PageSource, startPageServer } from '../../support/page-server.ts'

/**
 * A small site for the stuck scenarios, served over real HTTP so navigation,
 * history and URLs behave as on any site.
 */

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`

const products = Array.from({ length: 23 }, (_, index) => ({
  name: `Desk lamp model ${index + 1}`,
  price: 20 + ((index * 37) % 41),
}))
const perPage = 5

function search(url: URL): string {
  const pages = Math.ceil(products.length / perPage)
  const current = Math.min(Math.max(Number(url.searchParams.get('page') ?? '1'), 1), pages)
  const items = products.slice((current - 1) * perPage, current * perPage)
  const next = current < pages ? `<a href="/search?q=lamp&page=${current + 1}">Next</a>` : ''
  return page(
    `Search: lamp, page ${current}`,
    `<h1>Results for "lamp"</h1><p>Page ${current} of ${pages}</p>
     <ul>${items.map((item) => `<li>${item.name}: ${item.price} €</li>`).join('')}</ul>
     <nav>${next}</nav>`,
  )
}

const routes: Record<string, PageSource> = {
  '/newsletter': () =>
    page(
      'Newsletter',
      `<main><h1>Newsletter</h1><p id="status">Not subscribed yet.</p><button id="subscribe">Subscribe</button></main>
       <div id="consent" role="dialog" aria-label="Cookie notice"
            style="position:fixed;inset:0;background:rgba(0,0,0,.6);display:flex;align-items:center;justify-content:center">
         <p style="background:#fff;padding:2em">This site uses cookies.</p>
       </div>
       <script>
         document.getElementById('subscribe').onclick = () => { document.getElementById('status').textContent = 'Subscribed!' }
         addEventListener('keydown', (event) => { if (event.key === 'Escape') document.getElementById('consent')?.remove() })
       </script>`,
    ),
  '/register': () =>
    page(
      'Register',
      `<main><h1>Register</h1><form onsubmit="return false">
         <label>Email <input name="email" type="email"></label>
         <button type="submit" disabled>Create account</button>
       </form><p>Registration is closed for maintenance.</p></main>`,
    ),
  '/opening': () =>
    page('Opening', `<main><h1>Welcome</h1><p>Visit our shop.</p><a href="/about">About us</a></main>`),
  '/about': () =>
    page(
      'About',
      `<main><h1>About us</h1><p>A family business since 1982.</p><a href="/opening">Home</a></main>`,
    ),
  '/search': search,
}

export interface FixtureSite {
  url(path: string): string
  close(): Promise<void>
}

export async function startFixtureSite(): Promise<FixtureSite> {
  const server = await startPageServer({ pages: routes })
  return { url: (path) => `${server.url}${path}`, close: () => server.close() }
}
