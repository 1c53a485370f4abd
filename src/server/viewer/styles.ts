/** The viewer's whole stylesheet: served at /viewer/viewer.css, no framework, readable at 1280 px and on a phone. */
export const viewerCss = `
:root{--fg:#1d2330;--muted:#5d6675;--line:#dfe3ea;--bg:#f6f7f9;--card:#fff;--accent:#2457d6;--ok:#1b7f45;--bad:#b3261e;--warn:#8a5a00;--run:#2457d6;
font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
*{box-sizing:border-box}body{margin:0}
a{color:var(--accent)}
header.top{display:flex;align-items:center;gap:1rem;padding:.7rem 1.2rem;background:#141a26;color:#fff}
header.top a{color:#fff;text-decoration:none;font-weight:600}
main{max-width:1180px;margin:0 auto;padding:1rem 1.2rem 3rem}
h1{font-size:1.35rem;margin:.2rem 0 .8rem}h2{font-size:1.05rem;margin:0 0 .5rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:1rem;margin:0 0 1rem}
.grid{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,2fr);gap:1rem;align-items:start}
label{display:block;font-weight:600;font-size:.9rem;margin:.6rem 0 .2rem}
input,textarea,select{width:100%;font:inherit;padding:.45rem .55rem;border:1px solid #c5cbd6;border-radius:6px;background:#fff;color:inherit}
textarea{min-height:5.5rem;resize:vertical}
.row{display:flex;gap:.6rem;flex-wrap:wrap;align-items:center}.row>*{flex:1}
.toolbar{display:flex;justify-content:space-between;align-items:center;gap:1rem;margin-bottom:.4rem}.toolbar h2{margin:0}
label.inline{display:flex;gap:.5rem;align-items:center;margin:0}label.inline select{width:auto}
.check{display:flex;gap:.4rem;align-items:center;font-weight:400}.check input{width:auto}
button{font:inherit;font-weight:600;white-space:nowrap;padding:.45rem 1rem;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer}
button.secondary{background:#fff;color:var(--accent)}button.danger{background:var(--bad);border-color:var(--bad)}
button:disabled{opacity:.45;cursor:default}
.hint,.muted{color:var(--muted);font-size:.88rem}
[role=alert]{color:var(--bad);font-weight:600}[role=alert]:empty{display:none}
table{width:100%;border-collapse:collapse}th,td{text-align:left;padding:.45rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.8rem;text-transform:uppercase;letter-spacing:.03em;color:var(--muted)}
td.num{text-align:right;white-space:nowrap}td.task{max-width:28rem;overflow-wrap:anywhere}
.status{display:inline-block;font-size:.8rem;font-weight:700;padding:.1rem .5rem;border-radius:99px;background:#e8edf8;color:var(--run)}
.status.completed{background:#e3f4ea;color:var(--ok)}.status.failed{background:#fbe9e7;color:var(--bad)}.status.stopped{background:#f1f1f1;color:#555}
.run-head{display:flex;gap:1rem;align-items:flex-start;justify-content:space-between;flex-wrap:wrap}
.run-head h1{flex:1 1 20rem;overflow-wrap:anywhere}
.meta{display:flex;flex-wrap:wrap;gap:.3rem 1.2rem;color:var(--muted);font-size:.9rem;margin:.2rem 0 1rem}
.files{align-items:center;gap:.4rem .6rem}.files button{padding:.15rem .6rem;font-size:.85rem;overflow-wrap:anywhere}
.outcome{border-left:4px solid var(--muted)}.outcome.completed{border-color:var(--ok)}.outcome.failed{border-color:var(--bad)}
ol.steps{list-style:none;margin:0;padding:0}
.step{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1.1fr);gap:1rem}
.step>h2{grid-column:1/-1;margin:0}
.shot{position:relative;margin:0;border:1px solid var(--line);border-radius:6px;overflow:hidden;background:#eef0f4;align-self:start}
.shot img{display:block;width:100%;height:auto}
.target{position:absolute;border:3px solid #e8462f;border-radius:3px;box-shadow:0 0 0 2px #fff8;pointer-events:none}
.thought dt{font-weight:600;font-size:.82rem;color:var(--muted);margin-top:.3rem}.thought dd{margin:0;overflow-wrap:anywhere}
.action{margin:.6rem 0 0;padding:.5rem .6rem;border-radius:6px;background:#f3f5f9;overflow-wrap:anywhere}
.action code{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}
.result.ok{color:var(--ok)}.result.failed{color:var(--bad)}
.note{margin:.4rem 0 0;padding:.35rem .6rem;border-radius:6px;font-size:.9rem;background:#fff6e0;color:var(--warn)}
.note.error{background:#fbe9e7;color:var(--bad)}.note.info{background:#eef3ff;color:var(--run)}
.page-log h3{margin:.5rem 0 .2rem;font-size:.85rem}.page-log ul{margin:0;padding-left:1.1rem;font:12px/1.4 ui-monospace,monospace;overflow-wrap:anywhere}
.page-log .error{color:var(--bad)}.page-log .warning{color:var(--warn)}
.live img{display:block;max-width:100%;max-height:calc(100vh - 5rem);width:auto;height:auto;border:1px solid var(--line);border-radius:6px;background:#eef0f4}
.address{margin:.2rem 0 .5rem;overflow-wrap:anywhere}.address strong{font-family:ui-monospace,monospace}
.model-words{font-style:italic;overflow-wrap:anywhere}.model-words bdi{unicode-bidi:isolate}
.live.taken-over{border:2px solid var(--accent)}.live.taken-over img{cursor:crosshair}
.live img:focus{outline:3px solid var(--accent);outline-offset:2px}
.page-view pre{max-height:24rem;overflow:auto;background:#111722;color:#dde3ee;padding:.7rem;border-radius:6px;font-size:12px;white-space:pre-wrap}
.pending{border:2px solid var(--accent)}.pending .row{margin-top:.6rem}
#takeover .row>*{flex:none}
.pending pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f3f5f9;padding:.5rem;border-radius:6px;font-size:13px}
[hidden]{display:none!important}
@media (max-width:760px){
 main{padding:.8rem .7rem 2rem}.grid,.step{grid-template-columns:minmax(0,1fr)}
 .hide-narrow{display:none}td.task{max-width:none}
 th,td{padding:.4rem .3rem}
}
`
