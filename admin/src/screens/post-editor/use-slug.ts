// The post's slug: from the title until edited by hand, checked for clashes as it changes (API v2's
// slug check, which also suggests a free one).
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api.js';

export function useSlugCheck({
  source,
  touched,
  postId,
  onSuggestion,
}: {
  /** What the slug comes from: the slug typed, or else the title. */
  source: string;
  touched: boolean;
  /** The post the slug belongs to (its own slug is no clash), null for a new one. */
  postId: number | null;
  /** The slug the server suggests, while it follows the title. */
  onSuggestion: (slug: string) => void;
}) {
  const [slugState, setSlugState] = useState<{ available: boolean; suggestion: string } | null>(null);
  useEffect(() => {
    if (source.trim() === '') return setSlugState(null);
    const timer = setTimeout(() => {
      void api
        .GET('/api/v2/posts/slug-check', {
          params: {
            query: { slug: source.slice(0, 190), ...(postId !== null ? { post_id: String(postId) } : {}) },
          },
        })
        .then(({ data }) => {
          if (!data) return;
          setSlugState(data.data);
          if (!touched) onSuggestion(data.data.suggestion);
        });
    }, 300);
    return () => clearTimeout(timer);
  }, [source, touched, postId]);
  return slugState;
}
