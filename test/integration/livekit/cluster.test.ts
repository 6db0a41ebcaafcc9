// livekit-server in multi-node mode (test/helpers/livekit-cluster.ts): two nodes over one
// Redis. Each node serves every room, whichever node hosts it: the room API of either node
// lists both rooms, and participants joined through different nodes exchange data.

import { Room } from '@livekit/rtc-node';
import { AccessToken, RoomServiceClient } from 'livekit-server-sdk';
import { describe, expect } from 'vitest';
import { realtimeTest as it } from '../../fixtures/realtime.ts';
import type { LivekitCluster, LivekitClusterNode } from '../../helpers/livekit-cluster.ts';
import { waitFor } from '../../helpers/wait.ts';

describe('LiveKit cluster (two nodes, one Redis)', () => {
  let cluster: LivekitCluster;
  const joined: Room[] = [];

  const roomService = (node: LivekitClusterNode) =>
    new RoomServiceClient(node.httpUrl, cluster.apiKey, cluster.apiSecret);

  /** Joins `room` through `node` as `identity`; collects the text it receives. */
  const join = async (node: LivekitClusterNode, room: string, identity: string) => {
    const token = new AccessToken(cluster.apiKey, cluster.apiSecret, { identity });
    token.addGrant({ room, roomJoin: true, canPublishData: true, canSubscribe: true });
    const participant = new Room();
    const received: { from: string; text: string }[] = [];
    participant.registerTextStreamHandler('cluster.test', (reader, info) => {
      reader
        .readAll()
        .then((text) => received.push({ from: info.identity, text }))
        .catch(() => {});
    });
    await participant.connect(node.url, await token.toJwt(), {
      autoSubscribe: true,
      dynacast: false,
    });
    joined.push(participant);
    return { participant, received };
  };

  it.beforeAll(async ({ livekitCluster }) => {
    cluster = livekitCluster;
  }, 60_000);

  it.afterAll(async () => {
    for (const participant of joined) await participant.disconnect().catch(() => {});
  }, 60_000);

  it('starts two distinct nodes registered in one cluster', () => {
    const [one, two] = cluster.nodes;
    expect(cluster.nodes).toHaveLength(2);
    expect(one?.nodeId).not.toBe(two?.nodeId);
    const ports = cluster.nodes.flatMap((n) => [n.port, n.rtcTcpPort, n.rtcUdpPort]);
    expect(new Set(ports).size).toBe(6);
    expect(cluster.redisUrl).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
  });

  it('serves a room hosted on either node to participants joined through the other', async () => {
    const [one, two] = cluster.nodes as [LivekitClusterNode, LivekitClusterNode];
    const rooms = [
      { name: `cluster-on-1-${process.pid}`, host: one, other: two },
      { name: `cluster-on-2-${process.pid}`, host: two, other: one },
    ];
    for (const room of rooms) {
      // Created through node 1 both times; LiveKit places each on the node asked for.
      await roomService(one).createRoom({
        name: room.name,
        emptyTimeout: 30,
        nodeId: room.host.nodeId,
      });
      expect((await cluster.nodeHostingRoom(room.name))?.index).toBe(room.host.index);
    }
    for (const node of cluster.nodes) {
      const listed = (await roomService(node).listRooms()).map((r) => r.name).sort();
      expect(listed).toEqual(rooms.map((r) => r.name).sort());
    }

    for (const room of rooms) {
      const local = await join(room.host, room.name, 'through-host');
      const remote = await join(room.other, room.name, 'through-other');
      await waitFor(
        () =>
          local.participant.remoteParticipants.has('through-other') &&
          remote.participant.remoteParticipants.has('through-host'),
        { what: `both participants of ${room.name} to see each other`, timeoutMs: 20_000 },
      );
      await remote.participant.localParticipant?.sendText(`hello from node ${room.other.index}`, {
        topic: 'cluster.test',
      });
      await local.participant.localParticipant?.sendText(`hello from node ${room.host.index}`, {
        topic: 'cluster.test',
      });
      await waitFor(() => local.received.length > 0 && remote.received.length > 0, {
        what: `text both ways in ${room.name}`,
        timeoutMs: 20_000,
      });
      expect(local.received).toEqual([
        { from: 'through-other', text: `hello from node ${room.other.index}` },
      ]);
      expect(remote.received).toEqual([
        { from: 'through-host', text: `hello from node ${room.host.index}` },
      ]);
      // The room stayed where it was placed: joining through the other node moved nothing.
      expect((await cluster.nodeHostingRoom(room.name))?.index).toBe(room.host.index);
    }
  }, 90_000);

  it('stops every node and its Redis', async () => {
    for (const participant of joined.splice(0)) await participant.disconnect();
    await cluster.stop();
    for (const node of cluster.nodes) {
      await expect(fetch(node.httpUrl, { signal: AbortSignal.timeout(2_000) })).rejects.toThrow();
    }
  }, 60_000);
});
