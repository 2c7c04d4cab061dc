// Which errors of `pg` mean "the server is away" (503 with Retry-After) and which are faults of
// their own (left as they are).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ServiceError } from '../errors.ts';
import { isStoreUnavailable, unavailableOr } from './unavailable.ts';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

test('a server that is away: refused or reset sockets, shutdown and start-up SQLSTATEs, connections that ended', () => {
  for (const e of [
    withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
    withCode('read ECONNRESET', 'ECONNRESET'),
    withCode('terminating connection due to administrator command', '57P01'),
    withCode('the database system is shutting down', '57P03'),
    withCode('connection failure', '08006'),
    new Error('Connection terminated unexpectedly'),
    new Error('timeout exceeded when trying to connect'),
    new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], ''),
  ]) {
    assert.ok(isStoreUnavailable(e), e.message);
    const out = unavailableOr(e);
    assert.ok(out instanceof ServiceError && out.code === 'overloaded' && (out.facts.retryAfterSeconds ?? 0) > 0, e.message);
  }
});

test('faults of the query itself are not an outage', () => {
  for (const e of [
    withCode('duplicate key value', '23505'),
    withCode('syntax error', '42601'),
    withCode('deadlock detected', '40P01'),
    new Error('boom'),
    'text',
  ]) {
    assert.equal(isStoreUnavailable(e), false, String(e));
    assert.equal(unavailableOr(e), e);
  }
});
