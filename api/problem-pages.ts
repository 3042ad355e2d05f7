import { createHash } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { negotiateLanguage, PROBLEMS, problemBySlug, problemSlug, type ProblemCode } from '../domain/problems.ts';
import { allowOnPage } from './middleware/security-headers.ts';
import { sendProblem } from './problem.ts';
import { escapeHtml } from './host/html.ts';

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}code{background:#f3f3f3;padding:0 .2em}';
/** The pages' one inline style block, allowed by its hash; nothing else loads. */
const POLICY = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

function sendPage(res: Response, html: string): void {
  allowOnPage(res, POLICY);
  res.vary('Accept-Language').type('html').send(html);
}

function page(title: string, body: string, lang: string): string {
  return (
    `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>` +
    `<meta name="viewport" content="width=device-width,initial-scale=1"><style>${STYLE}</style>` +
    `</head><body>${body}</body></html>`
  );
}

/** The page each problem `type` resolves to, and an index of them all. */
export const problemPage: RequestHandler = (req, res) => {
  const code = problemBySlug(String(req.params.slug));
  if (!code) {
    sendProblem(req, res, 'not_found');
    return;
  }
  const lang = negotiateLanguage(req.get('accept-language'));
  const { status, title, description } = PROBLEMS[code];
  const markup = (text: string) => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
  sendPage(
    res,
    page(
      title[lang],
      `<h1>${escapeHtml(title[lang])}</h1><p>HTTP ${status} · <code>code</code>: <code>${code}</code></p><p>${markup(description)}</p><p><a href="./">All problem types</a></p>`,
      lang,
    ),
  );
};

export const problemIndex: RequestHandler = (req, res) => {
  const lang = negotiateLanguage(req.get('accept-language'));
  const rows = (Object.keys(PROBLEMS) as ProblemCode[])
    .map(
      (code) =>
        `<tr><td>${PROBLEMS[code].status}</td><td><a href="${problemSlug(code)}"><code>${code}</code></a></td><td>${escapeHtml(PROBLEMS[code].title[lang])}</td></tr>`,
    )
    .join('');
  sendPage(res, page('Problem types', `<h1>Problem types</h1><table>${rows}</table>`, lang));
};
