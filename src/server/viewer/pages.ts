import { html, raw } from 'hono/html'
import type { HtmlEscapedString } from 'hono/utils/html'

/**
 * The viewer's pages, rendered on the server as plain HTML. They carry no run
 * data: with an API token set, data is only readable with the bearer header,
 * which the page script sends (see client/common.ts). So the server renders
 * the structure, and the script fills it from /v1.
 */

type Markup = HtmlEscapedString | Promise<HtmlEscapedString>

export type ViewerPage = { kind: 'runs' } | { kind: 'run'; runId: string }

export function viewerDocument(page: ViewerPage, authRequired: boolean, assetVersion: string): Markup {
  const title = page.kind === 'run' ? `Run ${page.runId} · Sextant` : 'Runs · Sextant'
  const runId = page.kind === 'run' ? page.runId : ''
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<link rel="stylesheet" href="/viewer/viewer.css?v=${assetVersion}">
<script type="module" src="/viewer/viewer.js?v=${assetVersion}"></script>
</head>
<body data-page="${page.kind}" data-auth="${authRequired ? 'required' : 'none'}" data-run-id="${runId}">
<header class="top"><a href="/">Sextant</a><span class="muted">run viewer</span></header>
<main>
${authForm()}
${page.kind === 'run' ? runPage() : runsPage()}
</main>
</body>
</html>`
}

function authForm(): Markup {
  return html`<section id="auth" class="card" hidden aria-labelledby="auth-title">
<h2 id="auth-title">This server needs its API token</h2>
<form id="token-form">
<label for="token">API token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required>
<p class="hint">Kept in this browser tab only and sent as the bearer header; never put in a URL or a cookie.</p>
<p id="token-error" role="alert"></p>
<button type="submit">Use token</button>
</form>
</section>`
}

function runsPage(): Markup {
  const statuses = ['running', 'completed', 'stopped', 'failed']
  return html`<div id="content" class="grid">
<section class="card" aria-labelledby="new-run-title">
<h2 id="new-run-title">New run</h2>
<form id="new-run">
<label for="task">Task</label>
<textarea id="task" name="task" required placeholder="Find the opening hours of the city library"></textarea>
<label for="start-url">Start URL</label>
<input id="start-url" name="startUrl" type="url" placeholder="https://example.org">
<label for="model">Model</label>
<input id="model" name="model" placeholder="the server's default">
<div class="row">
<div><label for="max-turns">Max turns</label><input id="max-turns" name="maxTurns" type="number" min="1" max="1000" placeholder="40"></div>
</div>
<label for="allowed-domains">Allowed domains</label>
<input id="allowed-domains" name="allowedDomains" placeholder="example.org, *.example.com">
<label for="profile">Profile</label>
<input id="profile" name="profile" placeholder="none: start from an empty browser">
<div class="row">
<div><label for="device">Device</label><input id="device" name="device" placeholder="desktop; e.g. iPhone 15"></div>
<div><label for="locale">Locale</label><input id="locale" name="locale" placeholder="en-US"></div>
<div><label for="timezone">Time zone</label><input id="timezone" name="timezoneId" placeholder="the server's"></div>
</div>
<label for="instructions">Instructions</label>
<textarea id="instructions" name="instructions" maxlength="8000" placeholder="optional: rules of your own for this run (a site's conventions, a house style)"></textarea>
<label class="check"><input id="vision" name="vision" type="checkbox"> Vision: show the model each step's screenshot</label>
<p id="new-run-error" role="alert"></p>
<button type="submit">Start run</button>
</form>
</section>
<section class="card" aria-labelledby="runs-title">
<div class="toolbar"><h2 id="runs-title">Runs</h2>
<label for="status-filter" class="inline">Status
<select id="status-filter"><option value="">all</option>${raw(statuses.map((s) => `<option>${s}</option>`).join(''))}</select></label></div>
<table>
<thead><tr><th>Status</th><th>Task</th><th class="hide-narrow">Model</th><th class="num">Steps</th><th class="num hide-narrow">Cost</th><th class="num">Duration</th></tr></thead>
<tbody id="runs"></tbody>
</table>
<p id="runs-empty" class="muted" hidden>No runs yet.</p>
<p id="runs-error" role="alert"></p>
</section>
<section class="card" aria-labelledby="profiles-title">
<h2 id="profiles-title">Profiles</h2>
<table>
<thead><tr><th>Name</th><th>Sites</th><th class="num hide-narrow">Size</th><th class="hide-narrow">Saved</th><th>Last run</th></tr></thead>
<tbody id="profiles"></tbody>
</table>
<p id="profiles-empty" class="muted" hidden>No profiles yet: a run given a profile name creates it.</p>
</section>
</div>`
}

function runPage(): Markup {
  return html`<div id="content">
<p><a href="/">← All runs</a></p>
<div class="run-head">
<h1 id="run-task">Run</h1>
<div class="row"><span id="run-status" class="status" aria-live="polite">…</span><button id="take-over" class="secondary" type="button" disabled>Take over</button><button id="abort" class="danger" type="button" disabled>Abort</button></div>
</div>
<div id="run-meta" class="meta"></div>
<div id="run-profile" class="meta" hidden></div>
<div id="run-browser" class="meta" hidden></div>
<details id="run-instructions" class="meta" hidden><summary>Instructions</summary><pre></pre></details>
<div id="downloads" class="meta files" hidden></div>
<section id="takeover" class="card pending" hidden aria-live="polite" aria-label="Takeover"></section>
<section id="outcome" class="card outcome" hidden></section>
<section id="live" class="card live" hidden aria-labelledby="live-title">
<h2 id="live-title">Live</h2>
<p id="live-address" class="address" hidden>Address <strong data-live-origin></strong></p>
<img id="live-frame" alt="The run's browser, live">
</section>
<div id="pending" aria-live="polite"></div>
<ol id="steps" class="steps" aria-label="Steps"></ol>
<p id="run-error" role="alert"></p>
</div>`
}
