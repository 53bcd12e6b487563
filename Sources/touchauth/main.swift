// SPDX-License-Identifier: Apache-2.0
import TouchAuthCommands
TouchAuthCommands.main()
