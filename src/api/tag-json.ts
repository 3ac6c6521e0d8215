// A tag's fields as both APIs show them (API v1's spec R-Tg2, and API v2's Tag): snake_case, the
// same names and values. Each API adds what is its own (API v2: the websites it is bound to).
import type { Tag } from '../domain/tags/store.js';

export function tagFieldsJson(tag: Tag) {
  return {
    id: tag.id,
    name: tag.name,
    slug: tag.slug,
    type: tag.type,
    parent_id: tag.parentId,
    description: tag.description,
    icon: tag.icon,
    sort: tag.sort,
    created_at: tag.createdAt,
    updated_at: tag.updatedAt,
  };
}
