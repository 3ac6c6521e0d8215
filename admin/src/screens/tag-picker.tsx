// Picks tags (or categories) of one type for a post: type to filter the type's tags, choose one with
// the keyboard or the mouse, or create it on the spot when the policy lets the user add tags (authors
// and above: `create_tags`; contributors pick existing ones). Chosen tags are listed with a button
// that removes each.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { t } from '../i18n.js';
import { useAbilities } from '../session.js';

export interface TagOption {
  id: number;
  name: string;
}

interface Node extends TagOption {
  children: Node[];
}

const flatten = (nodes: Node[], depth = 0): Array<TagOption & { depth: number }> =>
  nodes.flatMap((node) => [{ id: node.id, name: node.name, depth }, ...flatten(node.children, depth + 1)]);

interface Props {
  type: string;
  label: string;
  value: TagOption[];
  onChange: (value: TagOption[]) => void;
}

export function TagPicker({ type, label, value, onChange }: Props) {
  const [all, setAll] = useState<Array<TagOption & { depth: number }>>([]);
  const [typed, setTyped] = useState('');
  const [active, setActive] = useState(0);
  const [error, setError] = useState('');
  const id = `picker-${type}`;
  const mayCreate = useAbilities().create_tags;

  useEffect(() => {
    void api.GET('/api/v2/tags', { params: { query: { filter: { type } } } }).then(({ data }) => {
      if (data) setAll(flatten(data.data));
    });
  }, [type]);

  const chosen = new Set(value.map((tag) => tag.id));
  const wanted = typed.trim().toLowerCase();
  const matches = wanted
    ? all.filter((tag) => !chosen.has(tag.id) && tag.name.toLowerCase().includes(wanted)).slice(0, 8)
    : [];
  const exact = all.some((tag) => tag.name.toLowerCase() === wanted);
  const options: Array<TagOption | 'create'> = [
    ...matches,
    ...(wanted && !exact && mayCreate ? (['create'] as const) : []),
  ];

  const pick = (tag: TagOption) => {
    onChange([...value, { id: tag.id, name: tag.name }]);
    setTyped('');
    setActive(0);
  };
  const create = async () => {
    setError('');
    const { data, error: problem } = await api.POST('/api/v2/tags', {
      body: { name: typed.trim(), type } as never,
    });
    if (problem || !data) return setError(problem?.detail ?? problem?.title ?? '');
    const tag = { id: data.data.id, name: data.data.name };
    setAll((current) => [...current, { ...tag, depth: 0 }]);
    pick(tag);
  };
  const choose = (option: TagOption | 'create') => (option === 'create' ? void create() : pick(option));

  return (
    <div class="picker">
      <label for={id}>{label}</label>
      {value.length > 0 && (
        <ul class="chips" aria-label={label}>
          {value.map((tag) => (
            <li key={tag.id}>
              {tag.name}{' '}
              <button
                type="button"
                class="chip-remove"
                aria-label={t('picker.remove', { name: tag.name })}
                onClick={() => onChange(value.filter((other) => other.id !== tag.id))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <input
        id={id}
        role="combobox"
        aria-expanded={options.length > 0}
        aria-controls={`${id}-options`}
        aria-autocomplete="list"
        aria-activedescendant={options.length > 0 ? `${id}-option-${active}` : undefined}
        value={typed}
        autocomplete="off"
        onInput={(event) => {
          setTyped(event.currentTarget.value);
          setActive(0);
        }}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown') setActive((n) => Math.min(n + 1, options.length - 1));
          else if (event.key === 'ArrowUp') setActive((n) => Math.max(n - 1, 0));
          else if (event.key === 'Enter' && options[active]) choose(options[active]);
          else if (event.key === 'Escape') setTyped('');
          else return;
          event.preventDefault();
        }}
      />
      <ul
        id={`${id}-options`}
        role="listbox"
        aria-label={label}
        class="options"
        hidden={options.length === 0}
      >
        {options.map((option, index) => (
          <li
            key={option === 'create' ? 'create' : option.id}
            id={`${id}-option-${index}`}
            role="option"
            aria-selected={index === active}
            class={index === active ? 'active' : undefined}
            onMouseDown={(event) => {
              event.preventDefault();
              choose(option);
            }}
          >
            {option === 'create' ? t('picker.create', { name: typed.trim() }) : option.name}
          </li>
        ))}
      </ul>
      {error && (
        <p class="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
