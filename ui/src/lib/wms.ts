// The warehouse orders' statuses in both languages (the wms_rk_status and wms_ck_status dictionaries), for the
// order pages and the desk's 仓库作业 card: one table, small enough to sit in either's chunk.
export const RK_STATUS: Record<string, [string, string]> = { 0: ['新建', 'New'], 1: ['收货中', 'Receiving'], 2: ['复核中', 'In review'], 3: ['待上架', 'Put-away'], 4: ['已完成', 'Done'], 9: ['已取消', 'Cancelled'] };
export const CK_STATUS: Record<string, [string, string]> = { 0: ['新建', 'New'], 1: ['已释放', 'Released'], 2: ['拣货中', 'Picking'], 3: ['已拣货', 'Picked'], 4: ['已发货', 'Shipped'], 9: ['已取消', 'Cancelled'] };
