// Who wrote a commit and why, in one short line: the CLI's phrase (shared/forensics.ts whoText).
export { whoText as whoLine } from '../../shared/forensics';
