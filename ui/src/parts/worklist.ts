// Work orders (../parts.ts).
export { AddWorkOrder, WorkOrderDetail } from '../features/worklist/WorkOrders';
