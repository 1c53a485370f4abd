import { libraryPage } from './bundle.ts'
import { type PageServer, startPageServer } from './page-server.ts'

/**
 * Pages built from real editors and web components (bundled at test time from dev dependencies): Quill's
 * rich-text editor with an icon-only toolbar, CodeMirror 6, Shoelace's dialog and select, whose
 * controls live in shadow roots, and react-contexify's right-click menu.
 */
export const reachPaths = {
  quill: '/quill.html',
  codemirror: '/codemirror.html',
  shoelace: '/shoelace.html',
  contexify: '/contexify.html',
} as const

export async function startReachPages(): Promise<PageServer> {
  const [quill, codemirror, shoelace, contexify] = await Promise.all([
    libraryPage({ entry: 'quill-editor.js', title: 'New post', css: ['quill/dist/quill.snow.css'] }),
    libraryPage({ entry: 'codemirror-editor.js', title: 'Snippet' }),
    libraryPage({
      entry: 'shoelace-settings.js',
      title: 'Account',
      css: ['@shoelace-style/shoelace/dist/themes/light.css'],
    }),
    libraryPage({
      entry: 'contexify-files.jsx',
      title: 'Files',
      css: ['react-contexify/ReactContexify.css'],
    }),
  ])
  return startPageServer({
    pages: {
      [reachPaths.quill]: quill,
      [reachPaths.codemirror]: codemirror,
      [reachPaths.shoelace]: shoelace,
      [reachPaths.contexify]: contexify,
    },
  })
}
