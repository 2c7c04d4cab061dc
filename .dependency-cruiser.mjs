// dependency-cruiser (npm run lint): the direction of imports between the rooms of server/ and no
// import cycles between files. The rows of rooms are server/layers.json, the one place they are
// written (docs/architecture.md's diagram is generated from it); each row becomes a rule here, so
// a room that imports one of its own row or above fails lint with the rule's name and the import.
import { readFileSync } from 'node:fs';

const { layers } = JSON.parse(readFileSync(new URL('./server/layers.json', import.meta.url), 'utf8'));

/** A room's files: its folder, or the loose file server/<room>.ts. */
const roomPath = (rooms) => `^server/(${rooms.join('|')})(/|\\.ts$)`;

const layerRules = layers.flatMap(({ rooms }, row) =>
  rooms.map((room) => {
    const forbidden = layers
      .slice(0, row + 1)
      .flatMap((l) => l.rooms)
      .filter((r) => r !== room);
    return {
      name: `room-${room}`,
      comment: `${room} imports only rooms of the rows below its own (server/layers.json): not ${forbidden.join(', ')}`,
      severity: 'error',
      from: { path: roomPath([room]), pathNot: '\\.test\\.ts$' },
      to: { path: roomPath(forbidden) },
    };
  }),
);

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'Two files that import each other (directly or round a loop): one holds what both need, or a name belongs lower down',
      severity: 'error',
      from: { path: '^(server|conformance|lib)/' },
      to: { circular: true },
    },
    {
      name: 'unplaced-room',
      comment: 'Every room of server/ has its row in server/layers.json',
      severity: 'error',
      from: { path: '^server/', pathNot: `${roomPath(layers.flatMap((l) => l.rooms))}|\\.test\\.ts$` },
      to: {},
    },
    {
      name: 'lib-below-all',
      comment: 'lib/ is shared by the server and the suite: it imports neither',
      severity: 'error',
      from: { path: '^lib/' },
      to: { path: '^(server|conformance|test)/' },
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|conformance/dist|data|scratch)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
