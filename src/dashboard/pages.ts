// The two HTML documents: the login page (the only thing served without credentials, so it is
// self-contained) and the shell that loads the page's script and stylesheet. Pure.

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function loginPage(message?: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ocm-ts dashboard: sign in</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:15px/1.4 system-ui,sans-serif;background:#f4f6f8;color:#1d2733;display:flex;justify-content:center;padding-top:10vh;margin:0}
form{background:#fff;padding:28px 32px;border-radius:8px;box-shadow:0 1px 4px #0002;width:min(560px,90vw)}
h1{font-size:20px;margin:0 0 12px}p{color:#4a5563;margin:0 0 14px}textarea{width:100%;box-sizing:border-box;font:13px monospace;height:90px}
button{margin-top:12px;padding:8px 18px;font-size:15px;background:#1f6feb;color:#fff;border:0;border-radius:6px;cursor:pointer}
.error{color:#b42318;font-weight:600}
</style></head>
<body><form method="post" action="/login">
<h1>ocm-ts hub dashboard</h1>
<p>Sign in with a bearer token of this hub (for example <code>kubectl create token</code>, or the
<code>dashboard.token</code> file of an embedded hub), or present the hub admin's client certificate.</p>
${message ? `<p class="error" id="login-error">${escapeHtml(message)}</p>` : ''}
<textarea name="token" id="token" placeholder="bearer token" autocomplete="off" required></textarea>
<button type="submit" id="login">Sign in</button>
</form></body></html>
`;
}

export function appPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ocm-ts fleet</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/app.css">
</head><body><div id="app"></div><script type="module" src="/app.js"></script></body></html>
`;
}
