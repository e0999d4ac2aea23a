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
}
