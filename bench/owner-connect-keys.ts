/**
 * `npm run bench:owner-connect-keys`: what the owner-connect signing keys cost per token on a
 * real Postgres (a scratch database on DATABASE_URL's server): choosing the signer, opening its
 * sealed private key and signing (`signingKeyForToken` + ES256 sign, done once per minted token);
 * finding the public key by kid and verifying (`verificationKey` + verify); and reading the set
 * served by GET /owner-connect/keys (`publishedKeySet`, one query). Prints the median and the 95th
 * percentile in milliseconds over BENCH_ROUNDS (default 500) sequential rounds of each.
 */
import { jwtVerify, SignJWT } from 'jose';
import { openDatabase } from '../db/orm.ts';
import { createScratchDatabase } from '../db/scratch.ts';
import { singleKeyRing } from '../domain/key-ring.ts';
import { sha256 } from '../infra/secrets.ts';
import { publishedKeySet, signingKeyForToken, verificationKey } from '../services/owner-connect/signing-keys.ts';
import { serviceStores } from '../services/stores/index.ts';
import { machine } from './machine.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 500);
const scratch = await createScratchDatabase(
  process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  'svc_bench',
);
const orm = await openDatabase(scratch.url);
const deps = {
  orm,
  stores: serviceStores(orm),
  secrets: {
    ring: singleKeyRing(new TextEncoder().encode('bench-server-secret-0123456789abcdefghij')),
    platformTokenHash: sha256('unused'),
  },
};

async function timed(work: () => Promise<unknown>): Promise<{ median: number; p95: number }> {
  for (let i = 0; i < 20; i += 1) await work(); // warm up
  const samples: number[] = [];
  for (let i = 0; i < ROUNDS; i += 1) {
    const start = performance.now();
    await work();
    samples.push(performance.now() - start);
  }
  const sorted = samples.sort((a, b) => a - b);
  const at = (q: number) => Number(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(3));
  return { median: at(0.5), p95: at(0.95) };
}

try {
  const now = new Date();
  let token = '';
  const sign = await timed(async () => {
    const { kid, privateKey } = await signingKeyForToken(deps, now);
    token = await new SignJWT({ property_ids: ['prp_x'] })
      .setProtectedHeader({ alg: 'ES256', typ: 'owner-connect+jwt', kid })
      .setSubject('own_x')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
  });
  const { kid } = await signingKeyForToken(deps, now);
  const verify = await timed(async () => {
    const key = await verificationKey(deps, kid, now);
    await jwtVerify(token, key!);
  });
  const set = await timed(() => publishedKeySet(deps, now));
  console.log(
    JSON.stringify(
      {
        machine: machine(),
        rounds: ROUNDS,
        'signingKeyForToken + ES256 sign, ms': sign,
        'verificationKey + verify, ms': verify,
        'publishedKeySet, ms': set,
      },
      null,
      2,
    ),
  );
} finally {
  await orm.close(true);
  await scratch.drop();
}
