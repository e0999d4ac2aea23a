// A contract found beside a table came with the table, from whoever wrote it. It is shown as
// such and not run until the user accepts it once; the rule lives in main/engine/accepted-files.ts
// (shared with the CLI's accepted connection files).
export { ACCEPTED_CONTRACTS_FILE, AcceptedContracts, sha256Of } from '../engine/accepted-files';
