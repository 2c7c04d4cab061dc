// dependency-cruiser (npm run lint): the direction of imports between the rooms of server/ and no
// import cycles between files. The rows of rooms are server/layers.json, the one place they are
// written (docs/architecture.md's diagram is generated from it); each row becomes a rule here, so
// a room that imports one of its own row or above fails lint with the rule's name and the import.
// A room named in no row is a feature room (the row marked `others`) and held to that row's rule.
import { readFileSync } from 'node:fs';

const { layers } = JSON.parse(readFileSync(new URL('./server/layers.json', import.meta.url), 'utf8'));

/** A room's files: its folder, or the loose file server/<room>.ts. */
const roomPath = (rooms) => `^server/(${rooms.join('|')})(/|\\.ts$)`;

const named = layers.flatMap((l) => l.rooms);

/** The rooms of the rows above `row`, and of its own row but `room`. */
const notBelow = (row, room) =>
  layers
    .slice(0, row + 1)
    .flatMap((l) => l.rooms)
    .filter((r) => r !== room);

const layerRules = layers.flatMap(({ rooms, others }, row) => [
  ...rooms.map((room) => ({
    name: `room-${room}`,
    comment: `${room} imports only rooms of the rows below its own (server/layers.json): not ${notBelow(row, room).join(', ')}`,
    severity: 'error',
    from: { path: roomPath([room]), pathNot: '\\.test\\.ts$' },
    to: { path: roomPath(notBelow(row, room)) },
  })),
  ...(others
    ? [
        {
          name: 'room-unnamed',
          comment: `A room named in no row is a feature room: it imports only rooms of the rows below them, not ${notBelow(row).join(', ')}`,
          severity: 'error',
          from: { path: `^server/(?!(${named.join('|')})(/|\\.ts$))[^/]+(/|\\.ts$)`, pathNot: '\\.test\\.ts$' },
          to: { path: roomPath(notBelow(row)) },
        },
      ]
    : []),
]);

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
