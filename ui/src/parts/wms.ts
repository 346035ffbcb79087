// The warehouse's order pages and stock card (../parts.ts).
export { InboundDetail, OutboundDetail, StockCard } from '../features/wms/Orders';
export { StockCount } from '../features/wms/Count';
