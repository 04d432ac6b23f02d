import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { EVENT_NAMES, WEBHOOK_TEST_EVENT } from '../../../src/events/event-catalogue.ts';

// docs/webhooks.md is what receivers are written from: every event a webhook can subscribe to must
// be in both of its tables (what it means, and what `data` holds), and nothing else.
const guide = readFileSync(new URL('../../../docs/webhooks.md', import.meta.url), 'utf8');

/** The event names in the first column of the markdown table under `heading`. */
function tableEvents(startsWith: string): string[] {
  const start = guide.indexOf(startsWith);
  assert.ok(start >= 0, `table "${startsWith}" in docs/webhooks.md`);
  const rows = guide.slice(start).split('\n').slice(2);
  const names: string[] = [];
  for (const row of rows) {
    const match = /^\| `([a-z_.]+)` \|/.exec(row);
    if (!match) break;
    names.push(match[1]!);
  }
  return names.sort();
}

describe('docs/webhooks.md lists the event catalogue', () => {
  const catalogue = [...EVENT_NAMES, WEBHOOK_TEST_EVENT].sort();

  it('the events table names every event, document.updated and subscription.tier_changed included', () => {
    assert.deepEqual(tableEvents('| Event | Meaning | Envelope |'), catalogue);
  });

  it('the data table describes every event', () => {
    assert.deepEqual(tableEvents('| Event | `data` |'), catalogue);
  });
});
