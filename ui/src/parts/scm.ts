// Projects, contracts, constructs, site progress, replays, the catalogue (../parts.ts).
export { ProjectDetail, ContractDetail } from '../features/scm/ProjectDetail';
export { ProcessDetail } from '../features/scm/Site';
export { ConstructInfo } from '../features/scm/Construct';
export { ReplayDetail } from '../features/scm/Replay';
export { CategoryTree } from '../features/scm/Categories';
