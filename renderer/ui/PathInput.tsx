// A path typed or pasted into a form (a table folder, a source file): no spell check, no
// autocomplete, a label for screen readers.
export interface PathInputProps {
  testId: string;
  placeholder: string;
  label: string;
  value: string;
  onChange(value: string): void;
}

export function PathInput({ testId, placeholder, label, value, onChange }: PathInputProps) {
  return (
    <input
      className="path-input"
      data-testid={testId}
      type="text"
      spellCheck={false}
      autoComplete="off"
      placeholder={placeholder}
      aria-label={label}
      value={value}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}
