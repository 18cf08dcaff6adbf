import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkTopology, type Phase, type TopologyNode } from '../../domain/feeder-topology.js';

const n = (imei: string, upstream: string | null, phase: Phase | null, powerLineId: string | null = 'L1'): TopologyNode => ({ imei, upstream, phase, powerLineId });

// [name, nodes, expected problems as "imei field: message fragment"]
const rows: [string, TopologyNode[], string[]][] = [
  ['a trunk with laterals on single phases', [n('h', null, 'ABC'), n('t1', 'h', 'ABC'), n('a1', 't1', 'A'), n('b1', 't1', 'B'), n('a2', 'a1', 'A')], []],
  ['three single-phase heads (one per phase)', [n('ha', null, 'A'), n('hb', null, 'B'), n('hc', null, 'C'), n('a1', 'ha', 'A')], []],
  ['devices without topology are left alone', [n('x', null, null), n('y', null, null, null)], []],
  ['rows in any order: the upstream may come later', [n('a1', 'h', 'A'), n('h', null, 'ABC')], []],
  ['unknown upstream', [n('h', null, 'ABC'), n('a1', 'nope', 'A')], ['a1 UpstreamIMEI: "nope" is not a device']],
  ['upstream on another power line', [n('h', null, 'ABC'), n('g', null, 'ABC', 'L2'), n('a1', 'g', 'A')], ['a1 UpstreamIMEI: "g" is on power line "L2", not "L1"']],
  ['upstream without phase', [n('h', null, null), n('a1', 'h', 'A')], ['a1 UpstreamIMEI: "h" has no Phase']],
  ['phase B below phase A', [n('h', null, 'A'), n('b1', 'h', 'B')], ['b1 Phase: B cannot hang below "h" on phase A']],
  ['three-phase below single-phase', [n('h', null, 'A'), n('t', 'h', 'ABC')], ['t Phase: ABC cannot hang below "h" on phase A']],
  ['upstream without own phase given', [n('h', null, 'ABC'), n('a1', 'h', null)], ['a1 Phase: is required with UpstreamIMEI']],
  ['topology without power line', [n('h', null, 'ABC', null)], ['h PowerLineID: is required']],
  ['itself as upstream', [n('h', null, 'ABC'), n('a', 'a', 'A')], ['a UpstreamIMEI: names the device itself', 'a UpstreamIMEI: forms a loop: a -> a']],
  ['a loop of three, reported once', [n('h', null, 'ABC'), n('x', 'z', 'A'), n('y', 'x', 'A'), n('z', 'y', 'A')], ['x UpstreamIMEI: forms a loop: x -> z -> y -> x']],
  ['two heads on phase A', [n('h1', null, 'ABC'), n('h2', null, 'A')], ['h2 UpstreamIMEI: power line "L1" already has a head on phase A ("h1")']],
  ['two heads on different lines are fine', [n('h1', null, 'ABC'), n('h2', null, 'ABC', 'L2')], []],
];
for (const [name, nodes, expected] of rows) {
  test(name, () => {
    const got = checkTopology(nodes).map((p) => `${p.imei} ${p.field}: ${p.message}`);
    assert.is(got.length, expected.length, got.join('\n'));
    expected.forEach((e, i) => assert.ok(got[i]!.startsWith(e), `${got[i]} should start with ${e}`));
  });
}

test.run();
