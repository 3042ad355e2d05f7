/** The reference app's three pages. Plain HTML, every value escaped; no script, no style. */

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${escape(title)}</title></head><body><main><h1>${escape(title)}</h1>${body}</main></body></html>`
  );
}

export function homePage(channel: string): string {
  return page(
    `${channel}: reference channel app`,
    '<p>This app receives owner-connect hand-offs at <code>POST /owner-connect</code>.</p>',
  );
}

/** The contract's rule: never bind a token without the signed-in host's confirmation, naming the owner. */
export function confirmPage(input: {
  channel: string;
  account: string;
  displayName: string;
  pendingId: string;
}): string {
  return page(
    `Connect ${input.displayName}?`,
    `<p id="owner">Owner: <strong>${escape(input.displayName)}</strong></p>` +
      `<p>Link this owner's listings to your ${escape(input.channel)} account <strong>${escape(input.account)}</strong>?</p>` +
      '<form method="post" action="/owner-connect/confirm">' +
      `<input type="hidden" name="pending" value="${escape(input.pendingId)}">` +
      '<button type="submit">Confirm</button></form>' +
      '<p>If you did not ask for this, close this page: nothing is linked.</p>',
  );
}

export function confirmedPage(input: { displayName: string; connectedAt: string }): string {
  return page(
    'Connected',
    `<p id="result" data-connected-at="${escape(input.connectedAt)}">${escape(input.displayName)} is connected since ${escape(input.connectedAt)}.</p>`,
  );
}

export function refusedPage(message: string): string {
  return page('Not connected', `<p id="result">${escape(message)}</p>`);
}
