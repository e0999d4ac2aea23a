// Titles and next steps for each error code, so a failure reads as a sentence, not a code.
import type { ErrorCode } from '../../shared/errors';

const TITLES: Partial<Record<ErrorCode, string>> = {
  not_found: 'Folder not found',
  not_a_folder: 'Not a folder',
  not_a_delta_table: 'Not a Delta table',
  log_corrupt: "The table's log is broken",
  version_missing: 'A version is missing from the log',
  version_not_found: 'Version not found',
  protocol_missing: 'The log has no protocol',
  metadata_missing: 'The log has no metadata',
  unsupported_feature: 'Unsupported table feature',
  checkpoint_corrupt: 'A checkpoint is broken',
  path_outside_table: 'A path points outside the table',
  not_a_regular_file: 'The log names something that is not a file',
  limit_exceeded: 'A file is larger than the reader allows',
  metadata_invalid: "The table's metadata is not valid",
  io_error: 'Cannot read the folder',
  source_unreadable: 'The source cannot be read',
  data_file_missing: 'A data file is missing',
  contract_invalid: 'The contract is not valid',
  contract_mismatch: 'The contract does not fit the data',
  cancelled: 'Cancelled',
  disconnected: 'Server stopped: lost the connection to the workbench',
  usage: 'Cannot do that',
  internal: 'Something failed inside the workbench',
};

const HINTS: Partial<Record<ErrorCode, string>> = {
  not_found: 'Check the path for typos; it must be a folder on this machine.',
  not_a_folder: 'Open the table\'s root folder: the one that contains _delta_log.',
  not_a_delta_table: 'A Delta table is a folder with a _delta_log folder of JSON commits inside.',
  log_corrupt: 'The commit named above cannot be parsed. The table itself was not changed; inspect or restore that commit file.',
  version_missing: 'A commit file was deleted or never written. Versions after the gap cannot be trusted.',
  path_outside_table: 'The table names a file outside its own folder (a path or a symbolic link). It was not read; allow outside paths for this table only if you trust where it points.',
  not_a_regular_file: 'A FIFO, device or socket sits where a file should be. Nothing was read from it; replace it with the real file.',
  limit_exceeded: 'The message names the limit and the setting that raises it, if the file is genuine.',
  metadata_invalid: 'The metaData action breaks the Delta protocol (see the message); Spark and delta-kernel refuse it too.',
  io_error: 'Check the folder\'s permissions for this user.',
  source_unreadable: 'Check the source path (a Parquet, CSV or JSON lines file, or a Delta folder) and that this user can read it.',
  contract_invalid: 'Fix the contract at the line named above; the editor shows the same problem on its line.',
  contract_mismatch: 'The contract names columns or types the source and the table do not have: map them (renames, ignore) or fix the keys.',
  cancelled: 'Nothing was changed. Start it again when you are ready.',
  disconnected: 'Start the workbench again (npm start, or lakerec-workbench) if it was stopped, then reconnect: the window keeps what it shows.',
};

export function errorTitle(code: ErrorCode): string {
  return TITLES[code] ?? code.replace(/_/g, ' ');
}

export function errorHint(code: ErrorCode): string | null {
  return HINTS[code] ?? null;
}
