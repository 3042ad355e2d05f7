import { GuestInput } from '../domain/guests.ts';
import type { IntegrationScope } from '../domain/integration-tokens.ts';
import { ProblemError } from '../domain/problems.ts';
import * as integration from '../services/integration.ts';
import type { AdminContext } from './context.ts';
import { AdminError } from './errors.ts';

/** Invented people at reserved example addresses and fictional numbers. */
const GUESTS: [ref: string, organization: string, first: string, last: string, phone: string][] = [
  ['demo-guest-ioana-marin', 'demo-org-carpathia', 'Ioana', 'Marin', '+40721000101'],
  ['demo-guest-mihai-stan', 'demo-org-carpathia', 'Mihai', 'Stan', '+40721000102'],
  ['demo-guest-elena-dobre', 'demo-org-carpathia', 'Elena', 'Dobre', '+40721000103'],
  ['demo-guest-luca-bianchi', 'demo-org-toscana', 'Luca', 'Bianchi', '+393331000201'],
  ['demo-guest-sofia-russo', 'demo-org-toscana', 'Sofia', 'Russo', '+393331000202'],
  ['demo-guest-pablo-garcia', 'demo-org-andalucia', 'Pablo', 'García', '+34600100301'],
  ['demo-guest-lucia-moreno', 'demo-org-andalucia', 'Lucía', 'Moreno', '+34600100302'],
];

export const DEMO_APP = {
  organization: 'demo-org-carpathia',
  app: 'demo-crm',
  scopes: ['guests.read'] as IntegrationScope[],
};

function refused(what: string, error: unknown): never {
  if (error instanceof ProblemError)
    throw new AdminError(`${what}: ${error.code} ${JSON.stringify(error.extras.errors ?? error.extras.detail ?? '')}`);
  throw error;
}

/**
 * The demo organizations' guests, written through the service behind `PUT /internal/v1/guests`,
 * and one installation of a demo CRM in the first organization. Its token is issued only when the
 * installation is created, so it appears once, in the first run's report.
 */
export async function seedDemoIntegration(ctx: AdminContext) {
  const guests: string[] = [];
  for (const [ref, organization, first, last, phone] of GUESTS) {
    const body = GuestInput.parse({
      organization,
      first_name: first,
      last_name: last,
      email: `${ref.slice('demo-guest-'.length)}@example.com`,
      phone,
    });
    await integration.putGuest(ctx, ref, body).catch((error: unknown) => refused(`guest ${ref}`, error));
    guests.push(ref);
  }
  const existing = (await integration.installationsWithTokens(ctx, DEMO_APP.organization)).find(
    ({ installation }) => installation.app === DEMO_APP.app,
  );
  if (existing) {
    return {
      guests,
      installation: {
        id: existing.installation.id,
        app: DEMO_APP.app,
        created: false,
        token: null,
        note: 'the token was shown when the installation was created; POST /internal/v1/installations/{id}/token issues a new one',
      },
    };
  }
  const installation = await integration
    .createInstallation(ctx, DEMO_APP.organization, { app: DEMO_APP.app, scopes: DEMO_APP.scopes })
    .catch((error: unknown) => refused('installation', error));
  const { token } = await integration.issueIntegrationToken(ctx, installation.id);
  return { guests, installation: { id: installation.id, app: DEMO_APP.app, created: true, token } };
}
