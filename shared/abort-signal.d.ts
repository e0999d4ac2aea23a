// shared/ is type-checked with neither DOM nor node types (tsconfig.shared.json), yet every
// runtime it runs in (Node, Electron, browsers) has AbortSignal. This declares the part shared/
// uses; it merges with the full DOM or node declaration wherever those are present.
interface AbortSignal {
  readonly aborted: boolean;
}
