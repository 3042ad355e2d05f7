import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { API_REVISION } from '../../api/openapi/document.ts';
import { EVENT_TYPES, PING_EVENT_TYPE } from '../../domain/events.ts';
import { WEBHOOK_EVENT_TYPES } from '../../clients/channel-kit/src/index.ts';
import { KIT_SCHEMA_PATH, REGENERATE_COMMAND, renderKitSchema } from '../../scripts/channel-kit-schema.ts';

const KIT = path.resolve(import.meta.dirname, '../../clients/channel-kit');

describe('the channel kit follows the description', () => {
  test('its generated types are what the description built from this code gives', async () => {
    const committed = readFileSync(KIT_SCHEMA_PATH, 'utf8');
    const fresh = await renderKitSchema();
    if (fresh !== committed) {
      const lines = { committed: committed.split('\n'), fresh: fresh.split('\n') };
      const at = lines.fresh.findIndex((line, i) => line !== lines.committed[i]);
      expect.fail(
        `clients/channel-kit/src/generated/schema.ts is not what the description gives (first difference at line ${at + 1}: ` +
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
