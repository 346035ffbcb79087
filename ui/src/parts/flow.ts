// Approvals: the work lists, forms, the designer and the approval centre (../parts.ts).
export { WorkList, HandleTask, ProcessDetail as FlowDetail, LeaveForm, LeaveList, StartForm } from '../features/flow/Work';
export { ModelPage, ManagerPage, FollowPage } from '../features/flow/Admin';
export { ApprovalTasks, ApprovalDetail, ApprovalFiles, ApprovalRecords } from '../features/flow/Approval';
