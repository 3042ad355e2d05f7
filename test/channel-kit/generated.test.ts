import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { API_REVISION } from '../../api/openapi/document.ts';
import { EVENT_TYPES, PING_EVENT_TYPE } from '../../domain/events.ts';
import { WEBHOOK_EVENT_TYPES } from '../../clients/channel-kit/src/index.ts';
import {
  KIT_EVENT_TYPES_PATH,
  KIT_SCHEMA_PATH,
  REGENERATE_COMMAND,
  renderKitEventTypes,
  renderKitSchema,
} from '../../scripts/channel-kit-schema.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const KIT = path.join(ROOT, 'clients/channel-kit');

describe('the channel kit follows the description', () => {
  test.each([
    ['types', KIT_SCHEMA_PATH, renderKitSchema],
    ['event types', KIT_EVENT_TYPES_PATH, renderKitEventTypes],
  ] as const)('its generated %s are what the description built from this code gives', async (_, file, render) => {
    const committed = readFileSync(file, 'utf8');
    const fresh = await render();
    if (fresh !== committed) {
      const lines = { committed: committed.split('\n'), fresh: fresh.split('\n') };
      const at = lines.fresh.findIndex((line, i) => line !== lines.committed[i]);
      expect.fail(
        `${path.relative(ROOT, file)} is not what the description gives (first difference at line ${at + 1}: ` +
          `${JSON.stringify(lines.committed[at])} here, ${JSON.stringify(lines.fresh[at])} generated). ` +
          `Run \`${REGENERATE_COMMAND}\` and commit the result.`,
      );
    }
  });

  test("its version is the description's revision", () => {
    const manifest = JSON.parse(readFileSync(path.join(KIT, 'package.json'), 'utf8')) as { version: string };
    expect(manifest.version, 'clients/channel-kit/package.json follows api/openapi/info.ts').toBe(API_REVISION);
  });

  test('the kit knows every event type the description lists', () => {
    expect([...WEBHOOK_EVENT_TYPES]).toEqual([...EVENT_TYPES, PING_EVENT_TYPE]);
  });
});
