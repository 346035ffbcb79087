// Ledgers, receivables and project cost (../parts.ts).
export { LedgerDetail, ReceivablesPage } from '../features/finance/Ledger';
export { CostPage } from '../features/finance/Cost';
