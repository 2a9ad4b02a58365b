// The explorer's one stylesheet and one small script, served from the process itself: the
// pages work with no network and the Content-Security-Policy allows nothing from elsewhere.
export const EXPLORER_CSS = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 0; color: #1d2330; background: #fafbfc; }
nav { display: flex; gap: 1rem; align-items: center; padding: .6rem 1rem; background: #1d2330; }
nav a { color: #dfe6f1; text-decoration: none; } nav a[aria-current="page"] { color: #fff; font-weight: 600; }
nav form { margin-left: auto; }
main { padding: 1rem 1.5rem; max-width: 1200px; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 1.6rem; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; background: #fff; }
th, td { border-bottom: 1px solid #e3e7ee; padding: .3rem .5rem; text-align: left; vertical-align: top; }
th { background: #f0f3f7; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
form.filters { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; margin-bottom: .8rem; }
form.filters label { display: flex; flex-direction: column; font-size: .85rem; }
form.inline { display: inline; }
input, select, button, textarea { font: inherit; padding: .2rem .4rem; }
pre { white-space: pre-wrap; word-break: break-word; background: #f3f5f8; padding: .5rem; margin: .3rem 0; max-height: 30rem; overflow: auto; }
details { margin: .3rem 0; } summary { cursor: pointer; }
.outcome-guard, .outcome-failed, .trip-note { color: #b3261e; font-weight: 600; }
.outcome-stopped, .outcome-paused { color: #8a5a00; }
.empty { color: #6b7280; }
.error { color: #b3261e; font-weight: 600; }
svg.chart text { font-size: 10px; fill: #4b5563; }
svg.chart rect.bar { fill: #3b6fd4; }
svg.chart rect.tools { fill: #b9cdf3; } svg.chart rect.model { fill: #3b6fd4; } svg.chart rect.trip { fill: #b3261e; }
figure { margin: .5rem 0 1rem; } figcaption { font-size: .8rem; color: #6b7280; }
.login { max-width: 22rem; margin: 4rem auto; } .login input { width: 100%; margin: .4rem 0; }
`;

/** Asks before a form marked data-confirm is sent. */
export const EXPLORER_JS = `
document.addEventListener("submit", (event) => {
  const form = event.target;
  if (form instanceof HTMLFormElement && form.dataset.confirm && !window.confirm(form.dataset.confirm)) event.preventDefault();
});
`;

/** Its own icon, so a browser does not ask the port's other listener (Slack's) for /favicon.ico. */
export const EXPLORER_ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1d2330"/><rect x="3" y="9" width="2" height="4" fill="#b9cdf3"/><rect x="7" y="5" width="2" height="8" fill="#3b6fd4"/><rect x="11" y="3" width="2" height="10" fill="#b9cdf3"/></svg>`;
