// The signed-in pages' frame: header, menus, tag bar, search, messages, lock and theme (../parts.ts). The sign-in
// page does without it.
export { MainLayout } from '../features/layout/MainLayout';
export { Placeholder, FramePage } from '../features/misc/Placeholder';
export { MessagesPage } from '../features/desk/Messages';
