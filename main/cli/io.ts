// What a command may touch of the outside world; tests give it buffers, the bin gives it stdio.
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  cwd: string;
  env: Record<string, string | undefined>;
}

export type CommandRun = (argv: string[], io: CliIO) => Promise<number>;

export interface Command {
  name: string;
  summary: string;
  usage: string;
  load: () => Promise<{ run: CommandRun }>;
  /**
   * The flags (without dashes) whose value is a file or folder the command writes, every form of
   * the command together: filled in from the command table's ARGS (main/cli/commands.ts), where
   * each form declares its flags, outputs and roots. The dispatcher checks each output through the
   * output guard before the command runs (main/cli/guard.ts); the command then writes only through
   * writeOutput (main/engine/outputs.ts). The hostile outputs test reads this list.
   */
  outputs?: string[];
  /**
   * The command takes a table location: it accepts `--anonymous` (unsigned requests for every
   * remote location of the run, a public bucket), which the dispatcher takes off the command line
   * and gives the run's store settings (main/storage/settings.ts) with io.env.
   */
  takesTable?: boolean;
}
