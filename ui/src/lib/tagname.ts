// Pages name their tab once they know what they show (a goods, a person's leave): the tag bar listens. Pages
// whose path ends in a database id otherwise share one title, told apart only by a number.
import { useEffect } from 'react';
import { useApp, splitUrl } from '../app';
import { TAG_NAME_EVENT, type TagNameDetail } from './tagbar';

/** Names the current page's tag: `name` says which record it shows; `title` replaces the route's title. */
export function useTagName(name: string | undefined, title?: string) {
  const { props } = useApp();
  const path = splitUrl(props.url)[0];
  useEffect(() => {
    if (!name && !title) return;
    window.dispatchEvent(new CustomEvent<TagNameDetail>(TAG_NAME_EVENT, { detail: { path, name, title } }));
  }, [path, name, title]);
}
